"""Workflow names written inside fixture files, so a rename keeps the fixtures working:
  * `fixtures/<step>/<case>.json`: the keys of `recorded_from.upstream` are step ids
    (record_case.py writes them; stale.py reads them);
  * `fixtures/_workflow/<case>.json`: the keys of `recorded` are step ids (the recorded
    outputs of public_egress steps) and the keys of `sources` are source names.

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


def fixture_names(path: str, text: str) -> list[tuple[str, str, Span]]:
    """(kind "step" | "source", name, span inside its quotes) of the names a fixture writes."""
    if os.path.basename(os.path.dirname(path)) == grammar.WORKFLOW_CASES_DIR:
        wanted = {("recorded",): "step", ("sources",): "source"}
    else:
        wanted = {_PATH: "step"}
    if not any(f'"{p[0]}"' in text for p in wanted):  # most fixtures: no tokenizing at all
        return []
    return [(wanted[p], k, sp) for p, k, sp in json_keys(text, set(wanted))]


def upstream_keys(text: str) -> list[tuple[str, Span]]:
    return [(k, sp) for _, k, sp in json_keys(text, {_PATH})]


def json_keys(text: str, paths: set[tuple[str, ...]]) -> list[tuple[tuple, str, Span]]:
    """(path, key, span inside its quotes) of every key of the objects at `paths` (key paths
    from the top-level object)."""
    out: list[tuple[tuple, str, Span]] = []
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
            where = tuple(k for _, k in stack[1:])
            if where in paths and "\\" not in key and all(o for o, _ in stack):
                out.append((where, key, Span(at_line, at_col + 1, at_line, at_col + 1 + len(key))))
        else:
            expect_key = False
    return out
