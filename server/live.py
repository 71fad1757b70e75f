"""What the last traced fixture runs left for the editor, per step file (issue 12): the text
they ran, each fixture's coverage and values, the fixture chosen for values, and whether the
buffer has moved on while it had check problems (the results are then shown stale). Held in
memory only: values are never written anywhere. Services in runner/language answer from it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from stepsmith.runner.language.coverage import (
    CoverageView,
    coverage_view,
    untaken_branches,
)
from stepsmith.runner.language.values import (
    TracedValues,
    ValueHint,
    pick_fixture,
    traced_values,
    value_hints,
    value_hover,
)


@dataclass
class FileRuns:
    """The last traced runs of one step's fixtures, on the text of its step file they ran."""

    function: str  # the step's function in the file
    text: str  # the step file's text those runs executed
    traces: dict = field(default_factory=dict)  # fixture -> sandbox.Coverage
    values: dict = field(default_factory=dict)  # fixture -> [sandbox.LineValue]
    order: list = field(default_factory=list)  # (fixture, passed) in run order
    interp: object = None  # the pinned interpreter that ran them (its parser reads `text`)


def _interpreter_of(cases: list):
    """The interpreter the runs' workflow pins (each LiveCase's case names its workflow)."""
    for c in cases:
        lw = getattr(getattr(c.result, "case", None), "workflow", None)
        if lw is not None:
            return getattr(lw.check, "interpreter", None)
    return None


class LiveState:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        # step file path -> {(manifest, step id): its last traced runs}; the newest recorded
        # text of a file is what its coverage is answered from
        self._files: dict[str, dict[tuple[str, str], FileRuns]] = {}
        self._latest: dict[str, str] = {}  # path -> the text of its newest recorded run
        self._stale: set[tuple[str, str]] = set()  # (manifest, step id) shown stale
        self._chosen: dict[str, str] = {}  # step file path -> fixture picked for values
        self._untaken: dict[str, tuple] = {}  # path -> (key, notes)

    # ------------------------------------------------------------------ recording
    def record(self, manifest: str, step_id: str, path: str, function: str, text: str | None,
               cases: list) -> None:
        """A finished (not superseded) run of a step's fixtures (runner.app.live.LiveCase)."""
        with self._lock:
            self._stale.discard((manifest, step_id))
            if text is None:
                return
            runs = FileRuns(function, text, interp=_interpreter_of(cases))
            for c in cases:
                name = c.result.case.case
                runs.order.append((name, c.result.outcome not in ("failed", "error")))
                if c.coverage is not None:
                    runs.traces[name] = c.coverage
                if c.values is not None:
                    runs.values[name] = c.values
            self._files.setdefault(path, {})[(manifest, step_id)] = runs
            self._latest[path] = text

    def mark_stale(self, manifest: str, step_id: str) -> None:
        with self._lock:
            self._stale.add((manifest, step_id))

    def is_stale(self, manifest: str, step_id: str) -> bool:
        return (manifest, step_id) in self._stale

    def choose(self, path: str, fixture: str | None) -> None:
        with self._lock:
            if fixture:
                self._chosen[path] = fixture
            else:
                self._chosen.pop(path, None)

    def _current(self, path: str) -> list[FileRuns]:
        """The runs of `path` on its newest recorded text."""
        with self._lock:
            latest = self._latest.get(path)
            return [r for r in self._files.get(path, {}).values() if r.text == latest]

    def fixtures(self, path: str) -> list[tuple[str, bool]]:
        return [o for r in self._current(path) for o in r.order]

    # ------------------------------------------------------------------ services
    def _traces(self, path: str) -> tuple[str | None, dict, object]:
        runs = self._current(path)
        traces: dict = {}
        for r in runs:
            traces.update(r.traces)
        return (runs[0].text if runs else None), traces, (runs[0].interp if runs else None)

    def coverage(self, path: str, text: str) -> CoverageView | None:
        ran, traces, interp = self._traces(path)
        if ran is None or not traces:
            return None
        return coverage_view(path, text, ran, traces, interp)

    def untaken(self, path: str, text: str) -> list:
        """Memoised per (runs, text): publishing asks again for every diagnostics push."""
        ran, traces, interp = self._traces(path)
        if ran is None or not traces:
            return []
        key = (hash(ran), tuple(sorted((k, hash(v)) for k, v in traces.items())), hash(text),
               interp)
        hit = self._untaken.get(path)
        if hit is not None and hit[0] == key:
            return hit[1]
        notes = untaken_branches(path, text, ran, traces, interp)
        self._untaken[path] = (key, notes)
        return notes

    def _traced(self, path: str, runs: FileRuns) -> TracedValues | None:
        name = pick_fixture([o for o in runs.order if o[0] in runs.values],
                            self._chosen.get(path))
        if name is None:
            return None
        cov = runs.traces.get(name)
        return traced_values(name, runs.text, runs.values.get(name),
                             cov.lines if cov is not None else ())

    def traced(self, path: str) -> TracedValues | None:
        """The values shown for the first step of the file (the chosen fixture's step)."""
        runs = self._current(path)
        chosen = self._chosen.get(path)
        runs.sort(key=lambda r: chosen not in dict(r.order))
        return self._traced(path, runs[0]) if runs else None

    def _per_function(self, path: str, text: str):
        """(TracedValues, first line, last line) per step function of the current text."""
        from stepsmith.runner.lines import function_spans

        spans = {f.name: f for f in function_spans(text)}
        for runs in self._current(path):
            f = spans.get(runs.function)
            tv = self._traced(path, runs) if f is not None else None
            if tv is not None:
                yield tv, f.line, f.end_line

    def hints(self, path: str, text: str, start: int, end: int) -> list[ValueHint]:
        out = []
        for tv, first, last in self._per_function(path, text):
            if first <= end and start <= last:
                out += value_hints(text, tv, max(start, first), min(end, last))
        return sorted(out, key=lambda h: h.line)

    def hover(self, path: str, text: str, line: int, column: int) -> str | None:
        for tv, first, last in self._per_function(path, text):
            if first <= line <= last:
                return value_hover(text, tv, line, column)
        return None
