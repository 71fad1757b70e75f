"""The step-file trace, parent side: the request sent into the sandbox and the check of what
comes back (harness/tracer.py records it).

The trace is untrusted like everything from the sandbox, and advisory: a malformed one is
dropped (the result stays), a well-formed one is bounded here again. It names no file: it is
the trace of the step file this parent asked to run (``Coverage.file`` is the parent's own
value), so no host path can enter through it. Only line numbers within the file's line count
are kept (others are left out one by one, the trace marked cut), only names the parent's own analysis says the line binds; every value string
is redacted (the Redactor, plus the forms a secret takes inside a repr) and cut after it.
"""

from __future__ import annotations

import opcode
from dataclasses import dataclass
from typing import Any, Literal

from ..pythons.checker import layout
from .redact import Redactor

TraceMode = Literal["coverage", "values"]
MODES = ("coverage", "values")

MAX_LINES = 10_000
MAX_ARCS = 20_000
MAX_REPR = 200  # characters of one value, after redaction
MAX_VALUE_CHARS = 64 * 1024  # all values of one trace, after redaction
MAX_TRACE_BYTES = 1024 * 1024  # the trace's own budget on the result channel


@dataclass(frozen=True)
class Coverage:
    """Statement lines and arcs of `file` one invocation executed (coverage.py's arcs:
    a negative number is the exit/entry of the code object starting on that line)."""

    file: str
    lines: frozenset[int]
    arcs: frozenset[tuple[int, int]]
    truncated: bool = False

    def to_json(self) -> dict:
        return {"file": self.file, "lines": sorted(self.lines),
                "arcs": [list(a) for a in sorted(self.arcs)], "truncated": self.truncated}

    @classmethod
    def from_json(cls, d: dict) -> Coverage:
        return cls(str(d["file"]), frozenset(int(x) for x in d["lines"]),
                   frozenset((int(a), int(b)) for a, b in d["arcs"]), bool(d.get("truncated")))


@dataclass(frozen=True)
class ValueSnapshot:
    assigned: tuple[tuple[str, str], ...]  # (name, repr) in the statement's binding order
    returned: str | None = None  # repr of the value returned on this line

    def label(self) -> str:
        parts = [f"{n} = {r}" for n, r in self.assigned]
        if self.returned is not None:
            parts.append(f"return {self.returned}")
        return ", ".join(parts)

    def to_json(self) -> dict:
        return {"assigned": [list(p) for p in self.assigned], "returned": self.returned}

    @classmethod
    def from_json(cls, d: dict) -> ValueSnapshot:
        return cls(tuple((str(n), str(r)) for n, r in d["assigned"]),
                   None if d.get("returned") is None else str(d["returned"]))


@dataclass(frozen=True)
class LineValue:
    """What one statement line produced: its first execution's values and, when it ran more
    than once (a loop body, a helper called again), its last one's."""

    line: int
    hits: int
    first: ValueSnapshot
    last: ValueSnapshot | None = None

    def label(self) -> str:
        """Inlay-hint text: `x = 1` or, for a line run n times, `x = 1 … x = 9 (n×)`."""
        if self.last is None or self.hits <= 1:
            return self.first.label()
        return f"{self.first.label()} … {self.last.label()} ({self.hits}×)"

    def to_json(self) -> dict:
        d = {"line": self.line, "hits": self.hits, "first": self.first.to_json()}
        if self.last is not None:
            d["last"] = self.last.to_json()
        return d

    @classmethod
    def from_json(cls, d: dict) -> LineValue:
        last = d.get("last")
        return cls(int(d["line"]), int(d["hits"]), ValueSnapshot.from_json(d["first"]),
                   ValueSnapshot.from_json(last) if last is not None else None)


def request(mode: str, source: str, filename: str, interp=None) -> dict | None:
    """The harness's trace configuration, or None when `source` does not parse (nothing of
    it will execute then). `interp`: the sandbox's interpreter (None: the running one): the
    line map comes from its parser and the opcodes the tracer reads are its own."""
    if mode not in MODES:
        raise ValueError(f"trace must be one of {MODES} or None, not {mode!r}")
    try:
        shape = layout(interp, source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return {"mode": mode, "filename": filename, "lmap": dict(shape.line_map),
            "assigns": {k: list(v) for k, v in shape.assigns.items()} if mode == "values"
            else {}, "max_lines": MAX_LINES, "max_arcs": MAX_ARCS, "max_repr": MAX_REPR,
            "max_value_chars": MAX_VALUE_CHARS, "max_bytes": MAX_TRACE_BYTES,
            "line_count": shape.line_count, **_opcodes(interp)}


def _opcodes(interp) -> dict:
    """The opcodes the tracer's coverage.py tests read, as the sandbox's interpreter numbers
    them (they change between versions: RESUME is 151 on 3.11, 149 on 3.13)."""
    if interp is None or interp.running:
        return {"resume": opcode.opmap.get("RESUME"),
                "push_exc_info": opcode.opmap.get("PUSH_EXC_INFO")}
    return {"resume": interp.opcode("resume"), "push_exc_info": interp.opcode("push_exc_info")}


class _Bad(ValueError):
    pass


def _int(v: Any) -> int:
    if type(v) is not int:
        raise _Bad("not an integer")
    return v


def check(raw: Any, conf: dict, red: Redactor) -> tuple[Coverage | None, list | None]:
    """(coverage, values) from the sandbox's raw trace; (None, None) when it is missing or
    malformed. `conf` is what `request` sent."""
    try:
        return _check(raw, conf, red)
    except (_Bad, KeyError, TypeError, ValueError, RecursionError):
        return None, None


def _check(raw: Any, conf: dict, red: Redactor) -> tuple[Coverage | None, list | None]:
    if not isinstance(raw, dict) or not set(raw) <= {"lines", "arcs", "truncated", "values"}:
        raise _Bad("trace shape")
    n = conf["line_count"]
    lines, arcs = raw.get("lines"), raw.get("arcs")
    if not isinstance(lines, list) or not isinstance(arcs, list):
        raise _Bad("lines/arcs")
    truncated = raw.get("truncated") is True
    if len(lines) > MAX_LINES or len(arcs) > MAX_ARCS:
        truncated = True
    # a number outside the file (0, past its end) is left out alone, never the whole trace
    # for one odd item; the trace then says it is cut
    got_lines = {_int(x) for x in lines[:MAX_LINES]}
    kept_lines = frozenset(x for x in got_lines if 0 < x <= n)
    got_arcs = set()
    for arc in arcs[:MAX_ARCS]:
        if not isinstance(arc, list) or len(arc) != 2:
            raise _Bad("arc")
        got_arcs.add((_int(arc[0]), _int(arc[1])))
    # both ends negative is an arc coverage.py's tracer records too (a generator closed
    # unfinished enters and leaves without a line): kept, it is simply no statement's
    kept_arcs = frozenset(a for a in got_arcs if 0 < abs(a[0]) <= n and 0 < abs(a[1]) <= n)
    truncated = truncated or len(kept_lines) < len(got_lines) or len(kept_arcs) < len(got_arcs)
    got_lines, got_arcs = kept_lines, kept_arcs
    cov = Coverage(conf["filename"], got_lines, frozenset(got_arcs), truncated)
    if conf["mode"] != "values":
        return cov, None
    vals = raw.get("values")
    if not isinstance(vals, list):
        raise _Bad("values")
    return cov, _values(vals, conf, red.with_repr_forms())


def _line(v: Any, n: int) -> int:
    line = _int(v)
    if not 0 < line <= n:
        raise _Bad("line out of the file")
    return line


def _values(vals: list, conf: dict, red: Redactor) -> list[LineValue]:
    n = conf["line_count"]
    assigns = conf["assigns"]
    out: list[LineValue] = []
    budget = MAX_VALUE_CHARS
    seen: set[int] = set()
    for item in vals[:MAX_LINES]:
        if not isinstance(item, dict) or not set(item) <= {"line", "hits", "first", "last"}:
            raise _Bad("value item")
        line = _line(item["line"], n)
        hits = _int(item["hits"])
        if hits < 1 or line in seen:
            raise _Bad("value hits/line")
        seen.add(line)
        allowed = set(assigns.get(line, ()))
        first = _snapshot(item["first"], allowed, red)
        last = _snapshot(item["last"], allowed, red) if item.get("last") is not None else None
        size = sum(_size(s) for s in (first, last) if s is not None)
        if size > budget:
            break  # the rest is dropped whole: the cap is after redaction
        budget -= size
        out.append(LineValue(line, hits, first, last))
    return out


def _size(s: ValueSnapshot) -> int:
    return sum(len(a) + len(b) for a, b in s.assigned) + len(s.returned or "")


def _snapshot(raw: Any, allowed: set[str], red: Redactor) -> ValueSnapshot:
    if not isinstance(raw, dict) or not set(raw) <= {"assigned", "returned"}:
        raise _Bad("snapshot")
    assigned = []
    for pair in raw.get("assigned", []):
        if not isinstance(pair, list) or len(pair) != 2 or pair[0] not in allowed \
                or not isinstance(pair[1], str):
            raise _Bad("assigned name")
        assigned.append((pair[0], _cut(red.text(pair[1]))))
    ret = raw.get("returned")
    if ret is not None and not isinstance(ret, str):
        raise _Bad("returned")
    return ValueSnapshot(tuple(assigned), None if ret is None else _cut(red.text(ret)))


def _cut(s: str) -> str:
    return s if len(s) <= MAX_REPR + 1 else s[:MAX_REPR] + "…"
