"""Coverage of a step file for the editor: what the last traced fixture runs executed, and the
branches none of them took ("no fixture takes this branch", an informational note).

Input: each fixture's `sandbox.Coverage` of the file (from `run_step(trace="coverage")`) and
the exact text those runs executed. The statement and branch shape comes from the parent's
own parse (runner/codeshape.py: coverage.py's analysis), never from the sandbox; each
trace is translated onto statements as coverage.py does (`FileCoverage.ran`). Lines are carried onto the
current buffer (carry.py): a line changed since the runs has no coverage rather than stale
coverage. Runner coordinates (1-based lines, code-point columns).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from stepsmith.runner.coverage.combine import FileCoverage, combine
from stepsmith.runner.lines import split_lines, strip_eol
from stepsmith.runner.problems import Span
from stepsmith.runner.sandbox.trace import Coverage

from .carry import line_map

UNTAKEN = "no fixture takes this branch"


@dataclass(frozen=True)
class FixtureLines:
    lines: tuple[int, ...]
    arcs: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class CoverageView:
    """One step file's coverage on the current text. `stale`: the buffer differs from the
    text the fixtures ran (lines that changed are in neither list)."""

    executed: tuple[int, ...]
    missing: tuple[int, ...]
    taken_arcs: tuple[tuple[int, int], ...]  # branch arcs some fixture took
    missing_arcs: tuple[tuple[int, int], ...]  # branch arcs of lines that ran, never taken
    fixtures: Mapping[str, FixtureLines]
    percent: float
    stale: bool

    def to_json(self) -> dict:
        return {"executed": list(self.executed), "missing": list(self.missing),
                "takenArcs": [list(a) for a in self.taken_arcs],
                "missingArcs": [list(a) for a in self.missing_arcs],
                "fixtures": {n: {"lines": list(f.lines), "arcs": [list(a) for a in f.arcs]}
                             for n, f in sorted(self.fixtures.items())},
                "percent": round(self.percent, 2), "stale": self.stale}


@dataclass(frozen=True)
class UntakenBranch:
    """An informational note on a branch line: the way out of it no fixture took."""

    span: Span  # the branch statement's header line, from its first non-blank character
    arc: tuple[int, int]  # (branch line, destination line; negative: leaves the function)
    message: str


def file_coverage(path: str, ran_text: str, traces: Mapping[str, Coverage],
                  interp=None) -> FileCoverage | None:
    """The fixtures' coverage of `path` on the text they ran (None when it does not parse).
    Every trace given is of this file (a trace names it as the sandbox saw it: relative to its
    workflow), so the traces' own name is the one combined on. `interp`: the pinned
    interpreter that ran them (its grammar reads the text)."""
    names = {c.file for c in traces.values() if c is not None}
    file = names.pop() if len(names) == 1 else path
    try:
        return combine(file, ran_text, traces, interp)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _arc(where: Mapping[int, int], a: tuple[int, int]) -> tuple[int, int] | None:
    src = where.get(a[0])
    if src is None:
        return None
    if a[1] < 0:
        dst = where.get(-a[1])
        return None if dst is None else (src, -dst)
    dst = where.get(a[1])
    return None if dst is None else (src, dst)


def _map_lines(where: Mapping[int, int], lines) -> tuple[int, ...]:
    return tuple(sorted(where[n] for n in lines if n in where))


def _map_arcs(where: Mapping[int, int], arcs) -> tuple[tuple[int, int], ...]:
    out = {m for m in (_arc(where, a) for a in arcs) if m is not None}
    return tuple(sorted(out))


def coverage_view(path: str, text: str, ran_text: str,
                  traces: Mapping[str, Coverage], interp=None) -> CoverageView | None:
    """What `stepsmith/coverage` answers for the buffer `text` of `path`."""
    fc = file_coverage(path, ran_text, traces, interp)
    if fc is None:
        return None
    where = line_map(ran_text, text)
    fixtures = {name: FixtureLines(_map_lines(where, r.lines),
                                   _map_arcs(where, r.arcs & fc.shape.arcs))
                for name, r in fc.ran.items()}
    return CoverageView(_map_lines(where, fc.executed), _map_lines(where, fc.missing),
                        _map_arcs(where, fc.taken_arcs), _map_arcs(where, fc.partial_arcs),
                        fixtures, fc.percent, ran_text != text)


def _dest(arc: tuple[int, int]) -> str:
    if arc[1] < 0:
        return "leaving the function"
    return f"to line {arc[1]}"


def untaken_branches(path: str, text: str, ran_text: str,
                     traces: Mapping[str, Coverage], interp=None) -> list[UntakenBranch]:
    """One note per branch arc no fixture took, on branch lines some fixture ran (a block no
    fixture reached is already named by its own branch line's note)."""
    if not traces:
        return []
    view = coverage_view(path, text, ran_text, traces, interp)
    if view is None:
        return []
    lines = split_lines(text)
    out = []
    for arc in view.missing_arcs:
        src = lines[arc[0] - 1] if arc[0] <= len(lines) else ""
        body = strip_eol(src)
        start = len(body) - len(body.lstrip())
        out.append(UntakenBranch(Span(arc[0], start, arc[0], len(body)), arc,
                                 f"{UNTAKEN} ({_dest(arc)})"))
    return out
