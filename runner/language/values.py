"""Values a fixture's run produced, for the editor: inlay hints at line ends and a hover line.

The values come from one traced sandbox run (`run_step(trace="values")`: per statement line
the reprs of the names it bound and the value it returned, first and last execution), already
redacted and capped by the parent (sandbox/trace.py). They live only in the editor's memory:
nothing here writes them anywhere. Pure functions over the step file's text; runner
coordinates (1-based lines, code-point columns).

When the buffer has moved on since the run, a line keeps its value only while it is unchanged
(carry.py); a changed line shows nothing rather than a value it no longer produces.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from stepsmith.runner.codeshape import layout
from stepsmith.runner.lines import function_spans, split_lines, strip_eol
from stepsmith.runner.sandbox.trace import LineValue, ValueSnapshot

from . import markdown as md
from .carry import line_map

MAX_LABEL = 60  # characters of one inlay hint
MAX_PART = 40  # characters of one repr inside a hint
_NAME = re.compile(r"[^\W\d]\w*")


@dataclass(frozen=True)
class TracedValues:
    """One fixture's values for one step file, and the exact text that run executed."""

    fixture: str
    text: str
    values: tuple[LineValue, ...]
    executed: frozenset[int] = frozenset()  # statement lines the run executed (coverage)


@dataclass(frozen=True)
class ValueHint:
    line: int
    column: int  # the end of the line (code points)
    label: str  # shortened: `= Decimal('12.50')`, `= 1 … 9 (3×)`
    tooltip: str  # the whole of it, with the fixture's name


def pick_fixture(results: Iterable[tuple[str, bool]], chosen: str | None = None) -> str | None:
    """The fixture to show values of: `chosen` when it is one of them, else the first failing
    one (`(name, passed)` pairs in the editor's order), else the first."""
    items = list(results)
    names = [n for n, _ in items]
    if chosen is not None and chosen in names:
        return chosen
    failing = [n for n, passed in items if not passed]
    if failing:
        return failing[0]
    return names[0] if names else None


def _cut(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _snap_label(s: ValueSnapshot, width: int, bare: bool) -> str:
    """`= r` for a line binding one name (the name is on the line already), `a = 1, b = 2`
    for several, `→ r` for a returned value."""
    parts = []
    if bare and len(s.assigned) == 1:
        parts.append(f"= {_cut(s.assigned[0][1], width)}")
    else:
        parts += [f"{n} = {_cut(r, width)}" for n, r in s.assigned]
    if s.returned is not None:
        parts.append(f"→ {_cut(s.returned, width)}")
    return ", ".join(parts)


def _single(s: ValueSnapshot | None) -> bool:
    return s is not None and len(s.assigned) == 1 and s.returned is None


def hint_label(v: LineValue, width: int = MAX_PART) -> str:
    """The inlay text of a line: its first value and, for a line run more than once (a loop
    body), its last one and how often it ran."""
    first = _snap_label(v.first, width, bare=True)
    if v.last is None or v.hits <= 1:
        return _cut(first, MAX_LABEL)
    if _single(v.first) and _single(v.last) and v.first.assigned[0][0] == v.last.assigned[0][0]:
        last = _cut(v.last.assigned[0][1], width)
    else:
        last = _snap_label(v.last, width, bare=True)
    return _cut(f"{first} … {last} ({v.hits}×)", MAX_LABEL)


def _full(v: LineValue, fixture: str) -> str:
    head = f"fixture {fixture}" + (f", ran {v.hits}×" if v.hits > 1 else "")
    body = v.first.label() if v.last is None or v.hits <= 1 else (
        f"first: {v.first.label()}\nlast: {v.last.label()}")
    return f"{head}\n{body}"


def _carried(text: str, traced: TracedValues) -> Mapping[int, int]:
    return line_map(traced.text, text)


def value_hints(text: str, traced: TracedValues | None, start_line: int = 1,
                end_line: int | None = None) -> list[ValueHint]:
    """Inlay hints for the lines `start_line..end_line` (inclusive) of `text`."""
    if traced is None:
        return []
    lines = split_lines(text)
    last = len(lines) if end_line is None else min(end_line, len(lines))
    where = _carried(text, traced)
    out = []
    for v in traced.values:
        line = where.get(v.line)
        if line is None or not start_line <= line <= last:
            continue
        label = hint_label(v)
        if not label:
            continue
        out.append(ValueHint(line, len(strip_eol(lines[line - 1])), label,
                             _full(v, traced.fixture)))
    out.sort(key=lambda h: h.line)
    return out


def _name_at(line_text: str, column: int) -> str | None:
    for m in _NAME.finditer(line_text):
        if m.start() <= column <= m.end():
            return m.group()
    return None


def _statement_line(text: str, line: int) -> int:
    try:
        return layout(text).line_map.get(line, line)  # the line map only: no coverage.py
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return line


def _enclosing_start(text: str, line: int) -> int:
    for f in function_spans(text):
        if f.line <= line <= f.end_line:
            return f.line
    return 1


def value_hover(text: str, traced: TracedValues | None, line: int, column: int) -> str | None:
    """Markdown for the name under the cursor on a line the fixture executed: the value that
    line bound to it, else the value of the name's last binding above it in the function."""
    if traced is None:
        return None
    lines = split_lines(text)
    if not 1 <= line <= len(lines):
        return None
    name = _name_at(strip_eol(lines[line - 1]), column)
    if name is None:
        return None
    where = _carried(text, traced)
    back = {new: old for old, new in where.items()}
    stmt = _statement_line(text, line)
    old_line = back.get(stmt)
    if old_line is None:
        return None
    by_line = {v.line: v for v in traced.values}
    ran = traced.executed | set(by_line)
    if old_line not in ran:
        return None
    start = back.get(_enclosing_start(text, line), 1)
    for cand in range(old_line, start - 1, -1):
        v = by_line.get(cand)
        if v is None:
            continue
        snaps = [v.first] + ([v.last] if v.last is not None and v.hits > 1 else [])
        found = [dict(s.assigned).get(name) for s in snaps]
        if found[0] is None:
            continue
        where_from = "" if cand == old_line else f" (bound on line {where.get(cand, cand)})"
        # values and the fixture's name are workflow data: escaped (issue 18)
        body = md.code(f"{name} = {found[0]}")
        if len(found) > 1 and found[1] is not None:
            body = (f"first: {md.code(f'{name} = {found[0]}')}  \n"
                    f"last: {md.code(f'{name} = {found[1]}')} ({v.hits}×)")
        return f"**{md.plain(name)}** in fixture {md.code(traced.fixture)}{where_from}\n\n{body}"
    return None


def traced_values(fixture: str, text: str, values: Sequence[LineValue] | None,
                  executed: Iterable[int] = ()) -> TracedValues | None:
    """A TracedValues from a run's `StepResult.values` / `.coverage.lines` (None: no values)."""
    if values is None:
        return None
    return TracedValues(fixture, text, tuple(values), frozenset(executed))
