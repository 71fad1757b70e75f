"""Step ids written inside fixture files: the keys of `recorded_from.upstream` (record_case.py
writes `{"recorded_from": {"case": ..., "upstream": {"<step id>": {...}}}}`), so renaming a
step keeps the provenance of the fixtures recorded downstream of it (stale.py reads it).

JSON has no positions in the standard library: a small tokenizer walks the text once and
reports the key strings at exactly that path, by code-point span. Escaped keys are skipped
(a step id never needs an escape).
"""

from __future__ import annotations

import os
import re

from stepsmith.runner.model import grammar
from stepsmith.runner.problems import Span

_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+|\s+')
_PATH = ("recorded_from", "upstream")


def fixture_files(folder: str) -> list[str]:
    """`fixtures/<step>/*.json` under a workflow folder (no symlinked folder or file)."""
    root = os.path.join(folder, grammar.FIXTURES_DIR)
    if not os.path.isdir(root) or os.path.islink(root):
        return []
    out = []
    for step in sorted(os.listdir(root)):
        d = os.path.join(root, step)
        if os.path.islink(d) or not os.path.isdir(d):
            continue
        out += [os.path.join(d, f) for f in sorted(os.listdir(d))
                if f.endswith(".json") and not os.path.islink(os.path.join(d, f))]
    return out


def upstream_keys(text: str) -> list[tuple[str, Span]]:
    """(step id, span inside its quotes) of every key of the top-level
    `recorded_from.upstream` object."""
    out: list[tuple[str, Span]] = []
    stack: list[tuple[bool, str | None]] = []  # (is an object, the key it sits under)
    key: str | None = None  # the last key read in the innermost object
    expect_key = False
    line, col = 1, 0
    for m in _TOKEN.finditer(text):
        tok = m.group()
        at_line, at_col = line, col
        nl = tok.count("\n")
        line, col = (line + nl, len(tok) - tok.rfind("\n") - 1) if nl else (line, col + len(tok))
        if tok[0] in " \t\r\n":
            continue
        if tok in ("{", "["):
            in_object = bool(stack) and stack[-1][0]
            stack.append((tok == "{", key if in_object else None))
            expect_key, key = tok == "{", None
        elif tok in ("}", "]"):
            if stack:
                stack.pop()
            expect_key = False
        elif tok == ",":
            expect_key = bool(stack) and stack[-1][0]
        elif tok[0] == '"' and expect_key:
            key, expect_key = tok[1:-1], False
            if tuple(k for _, k in stack[1:]) == _PATH and "\\" not in key:
                out.append((key, Span(at_line, at_col + 1, at_line, at_col + 1 + len(key))))
        else:
            expect_key = False
    return out
