"""`--format json` always prints exactly one JSON document on stdout, errors included.

A command in JSON mode writes its own document when it has a result. When it stops before
that (a usage error from argparse, an unknown step, a pin mismatch, an internal error),
nothing reached stdout: :func:`guarded` then writes one error document built from what the
command said on stderr, so CI can always parse stdout. stderr still gets the human text.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable

from stepsmith.runner.cli import LISTED
from stepsmith.runner.display import json_text


class _Tracked:
    """A text stream wrapper that remembers whether (and what) was written."""

    def __init__(self, stream, keep: bool, translate: Callable[[str], str] | None = None):
        self._stream = stream
        self._keep = keep
        self._translate = translate
        self.written = False
        self.text: list[str] = []

    def write(self, s: str) -> int:
        if self._translate is not None and s:
            s = self._translate(s)
        n = self._stream.write(s)  # a write that raised (text no encoder takes) wrote nothing:
        if s:                      # the guard then still prints its one error document
            self.written = True
            if self._keep:
                self.text.append(s)
        return n

    def __getattr__(self, name):  # isatty, flush, encoding, fileno, buffer ...
        return getattr(self._stream, name)


def command_of(argv: list[str]) -> str | None:
    names = {name for commands in LISTED.values() for name in commands}
    return next((a for a in argv if a in names), None)


def error_text(stderr: str, command: str | None) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    usage_error = [ln for ln in lines if re.match(r"^\S+( \S+)?: error: ", ln)]
    if usage_error:  # argparse: the usage block, then "prog: error: message"
        lines = usage_error
    prefix = f"stepsmith {command}: " if command else "stepsmith: "
    return "\n".join(ln.removeprefix(prefix) for ln in lines)


def guarded(argv: list[str], run: Callable[[], int]) -> int:
    # stdout holds one JSON document: DEL and C1 characters (workflow data: names, messages,
    # captured output) go out as \u escapes, the same value without driving a terminal
    out = _Tracked(sys.stdout, keep=False, translate=json_text)
    err = _Tracked(sys.stderr, keep=True)
    real_out, real_err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        try:
            code = run()
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        sys.stdout, sys.stderr = real_out, real_err
    if not out.written:
        command = command_of(argv)
        doc = {"ok": code == 0, "command": command, "exit_code": code,
               "error": error_text("".join(err.text), command) or None}
        real_out.write(json_text(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")
    return code
