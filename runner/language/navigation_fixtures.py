"""Workflow names written inside fixture files, so a rename keeps the fixtures working:
  * `fixtures/<step>/<case>.json`: the keys of `recorded_from.upstream` are step ids
    (record_case.py writes them; stale.py reads them);
  * `fixtures/_workflow/<case>.json`: the keys of `recorded` are step ids (the recorded
    outputs of public_egress steps) and the keys of `sources` are source names.

Positions come from the one JSON locator (runner/fixtures/jsonpos.py): the key strings at
exactly that path, by code-point span inside their quotes; a fixture that does not parse
names nothing (a rename never edits a file it cannot read). Escaped keys are skipped (a step
id never needs an escape).
"""

from __future__ import annotations

import os

from stepsmith.runner.fixtures.jsonpos import keys
from stepsmith.runner.model import grammar
from stepsmith.runner.problems import Span

_PATH = ("recorded_from", "upstream")


def fixture_names(path: str, text: str) -> list[tuple[str, str, Span]]:
    """(kind "step" | "source", name, span inside its quotes) of the names a fixture writes."""
    if os.path.basename(os.path.dirname(path)) == grammar.WORKFLOW_CASES_DIR:
        wanted = {("recorded",): "step", ("sources",): "source"}
    else:
        wanted = {_PATH: "step"}
    if not any(f'"{p[0]}"' in text for p in wanted):  # most fixtures: nothing to walk
        return []
    return [(kind, k, sp) for at, kind in wanted.items() for k, sp in json_keys(text, at)]


def json_keys(text: str, path: tuple[str, ...]) -> list[tuple[str, Span]]:
    """(key, span inside its quotes) of every unescaped key of the object at `path`."""
    return [(k, Span(sp.line, sp.column + 1, sp.end_line, sp.end_column - 1))
            for k, sp, raw in keys(text, path) if raw == k]
