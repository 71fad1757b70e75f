"""Checking step code with the pinned interpreter's grammar while stepsmith runs on another one.

`validate(...)` is the one entry every check goes through (the CLI's `check`, the fixture
loader, the editor, the parent's check before a sandbox): when the pin's minor version is the
running interpreter's it is the in-process validator, as always; otherwise the question goes
to a helper process of the pinned interpreter (helper.py: the same validator modules,
compiled and run by that interpreter, so `ast.parse` is that version's parser), started on
first use and kept for the process's life, one per interpreter. A helper that fails, stops
or does not answer in time is replaced; the file is then reported as not checked (SS003):
fail closed, never "no problems".
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import marshal
import os
import select
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from stepsmith.runner.codeshape import Layout
from stepsmith.runner.codeshape import layout as layout_here
from stepsmith.runner.problems import Problem, Severity, Span
from stepsmith.runner.validator import validate as validate_here
from stepsmith.runner.validator.walk import rationale as why
from stepsmith.runner.validator_sources import validator_files

from .pins import Pin
from .probe import Interpreter, running

HELPER = Path(__file__).resolve().with_name("helper.py")
ANSWER_TIMEOUT_S = 60.0  # a 1 MiB file parses in well under a second; a hung helper is killed
_RUNNER = Path(__file__).resolve().parent.parent


class HelperFailed(RuntimeError):
    pass


def _sources() -> list[tuple[str, bool, str, bytes]]:
    """The modules the helper serves: the validator (as the harness ships it) and the parts
    of the runner the trace layout needs."""

    files = list(validator_files())
    files.append(("stepsmith.runner.pyparse", _RUNNER / "pyparse.py"))
    files.append(("stepsmith.runner.codeshape", _RUNNER / "codeshape.py"))
    out = []
    for name, path in files:
        label = str(path.relative_to(_RUNNER))
        out.append((name, path.name == "__init__.py", f"<stepsmith:{label}>", path.read_bytes()))
    return out


def _packages() -> dict[str, str]:
    """Pure-Python packages the helper imports from their folders, without running their
    `__init__` (coverage.py's parser: the static analysis of coverage reports)."""

    spec = importlib.util.find_spec("coverage")
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    return {"coverage": locations[0]} if locations else {}


def _frame(obj) -> bytes:
    data = marshal.dumps(obj, 4)
    return len(data).to_bytes(8, "big") + data


class Helper:
    """One helper process of one interpreter; requests are answered one at a time."""

    def __init__(self, interp: Interpreter) -> None:
        self.interp = interp
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        proc = subprocess.Popen([self.interp.exe, "-I", "-S", "-B", str(HELPER)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env={}, close_fds=True,
                                start_new_session=True)
        assert proc.stdin is not None
        proc.stdin.write(_frame((_sources(), _packages())))
        proc.stdin.flush()
        return proc

    def _read(self, proc: subprocess.Popen, n: int, deadline: float) -> bytes:
        fd = proc.stdout.fileno()
        buf = bytearray()
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise HelperFailed(f"no answer within {ANSWER_TIMEOUT_S:.0f} s")
            chunk = os.read(fd, n - len(buf))
            if not chunk:
                raise HelperFailed("the helper stopped")
            buf += chunk
        return bytes(buf)

    def _exchange(self, request: tuple):
        if self._proc is None or self._proc.poll() is not None:
            self._proc = self._start()
        proc = self._proc
        deadline = time.monotonic() + ANSWER_TIMEOUT_S
        try:
            proc.stdin.write(_frame(request))
            proc.stdin.flush()
            size = int.from_bytes(self._read(proc, 8, deadline), "big")
            return marshal.loads(self._read(proc, size, deadline))
        except (OSError, ValueError, EOFError, HelperFailed) as exc:
            self.close()
            raise HelperFailed(str(exc) or type(exc).__name__) from None

    def ask(self, request: tuple):
        """The helper's answer; a helper that stopped is started again once."""
        with self._lock:
            try:
                return self._exchange(request)
            except HelperFailed:
                return self._exchange(request)

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                proc.kill()
            except OSError:
                pass
            proc.wait()
            for f in (proc.stdin, proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass


_lock = threading.Lock()
_helpers: dict[str, Helper] = {}


def helper(interp: Interpreter) -> Helper:
    with _lock:
        h = _helpers.get(interp.exe)
        if h is None or h.interp != interp:
            h = _helpers[interp.exe] = Helper(interp)
        return h


def close_all() -> None:
    with _lock:
        helpers = list(_helpers.values())
        _helpers.clear()
    for h in helpers:
        h.close()


atexit.register(close_all)


def in_process(interp: Interpreter | None) -> bool:
    """Whether this process parses as `interp` does: the same minor version (a grammar and
    the dialect's module names change between minor versions only)."""
    return interp is None or interp.version[:2] == running().version[:2]


def grammar_known(pin: str) -> bool:
    """Whether this process can check code pinned to `pin` without its interpreter: its own
    grammar is the pin's or newer (the parser's `feature_version` reads the older one)."""

    p = Pin.parse(pin)
    return p is None or (p.major, p.minor) <= running().version[:2]


def validate(source: str | bytes, *, python: str, uses: Sequence = (), line_offset: int = 0,
             interpreter: Interpreter | None = None) -> list:
    """The validator's problems for `source` as the pinned interpreter sees it."""

    if in_process(interpreter):
        return validate_here(source, python=python, uses=list(uses), line_offset=line_offset)

    assert interpreter is not None
    wire = tuple((str(u.step_id), str(u.function), str(getattr(u, "network", "none")),
                  getattr(u, "effects", None)) for u in uses)
    try:
        return list(_remote(interpreter, source, python, wire, line_offset))
    except (HelperFailed, TypeError, ValueError) as exc:
        line = 1 + line_offset
        return [Problem("SS003", f"not checked: the check helper of {interpreter.label()} "
                        f"failed ({exc})"[:500], Span(line, 0, line, 1),
                        rationale=why("SS003"))]


@functools.lru_cache(maxsize=64)
def _remote(interp: Interpreter, source, python: str, wire: tuple, line_offset: int) -> tuple:
    """The helper's problems, kept for the same question (every fixture of a step validates
    its file again before its sandbox; a failure is not kept)."""

    kind, value = helper(interp).ask(("validate", source, python, list(wire), line_offset))
    if kind != "ok":
        raise HelperFailed(str(value))
    return tuple(Problem(code, message, Span(*span), path=path, step=step, rationale=rationale,
                         severity=Severity(severity), data=data)
                 for code, message, span, path, step, rationale, severity, data in value)


def layout(interp: Interpreter | None, source: str):
    """codeshape.layout(source) as `interp` parses it (SyntaxError when it does not);
    None: the running interpreter."""
    if in_process(interp):
        return layout_here(source)
    line_map, assigns, count = _parsed(interp, ("layout", source))
    return Layout(dict(line_map), {int(k): tuple(v) for k, v in assigns.items()}, int(count))


def analysis(interp: Interpreter, source: str) -> dict:
    """codeshape.shape_data(source) computed by `interp` (its grammar, coverage.py's
    parser run by it); SyntaxError when it does not parse there."""
    return _parsed(interp, ("analyse", source))


def _parsed(interp: Interpreter, request: tuple):
    """The helper's answer to a request that parses the source (SyntaxError when it does not,
    or when the helper cannot say)."""
    try:
        kind, value = helper(interp).ask(request)
    except HelperFailed as exc:
        raise SyntaxError(f"not parsed by {interp.label()}: {exc}") from None
    if kind != "ok":
        raise SyntaxError(str(value))
    return value


def compiles(interp: Interpreter, source: str, filename: str = "<step>"
             ) -> tuple[str, int] | None:
    """None when `interp`'s own compile() accepts `source`, else (message, line). Through
    the helper even for the running version: this is the reference the validator is tested
    against."""
    kind, value = helper(interp).ask(("compile", source, filename))
    if kind == "ok":
        return None
    if kind == "syntax":
        return (str(value[0]), int(value[1]))
    raise HelperFailed(str(value))
