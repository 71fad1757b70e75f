"""Per-fixture coverage (`sandbox.Coverage`, one per invocation) combined per step file,
against the file's static shape (`static.analyse`), so what no fixture ran can be named:
missing statements, and branch arcs no fixture took. Pure functions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from stepsmith.runner.coverage.static import StepFileShape, analyse
from stepsmith.runner.sandbox.trace import Coverage


@dataclass(frozen=True)
class FileCoverage:
    """One step file's coverage over a set of fixtures (`fixtures`: name -> its trace)."""

    file: str
    shape: StepFileShape
    fixtures: Mapping[str, Coverage]

    @property
    def statements(self) -> frozenset[int]:
        return self.shape.statements

    @property
    def executed(self) -> frozenset[int]:
        ran: set[int] = set()
        for cov in self.fixtures.values():
            ran |= cov.lines
        return frozenset(ran) & self.shape.statements

    @property
    def missing(self) -> frozenset[int]:
        return self.shape.statements - self.executed

    @property
    def taken_arcs(self) -> frozenset[tuple[int, int]]:
        taken: set[tuple[int, int]] = set()
        for cov in self.fixtures.values():
            taken |= cov.arcs
        return frozenset(taken) & self.shape.arcs

    @property
    def missing_arcs(self) -> frozenset[tuple[int, int]]:
        """Every possible branch arc no fixture took (also those of lines that never ran)."""
        return self.shape.arcs - self.taken_arcs

    @property
    def partial_arcs(self) -> frozenset[tuple[int, int]]:
        """Untaken arcs of branch lines that did run: what coverage.py lists as `a->b`."""
        ran = self.executed
        return frozenset(a for a in self.missing_arcs if a[0] in ran)

    @property
    def partial_branches(self) -> int:
        """BrPart: branch lines that ran but did not take every way out."""
        return len({a for a, _ in self.partial_arcs})

    @property
    def percent(self) -> float:
        total = len(self.statements) + len(self.shape.arcs)
        if not total:
            return 100.0
        return 100.0 * (len(self.executed) + len(self.taken_arcs)) / total

    def fixture_hits(self, line: int) -> int:
        return sum(1 for c in self.fixtures.values() if line in c.lines)

    def arc_hits(self, arc: tuple[int, int]) -> int:
        return sum(1 for c in self.fixtures.values() if arc in c.arcs)


def combine(file: str, source: str, traces: Mapping[str, Coverage] | Iterable[tuple[str, Coverage]]
            ) -> FileCoverage:
    """`file`'s coverage from its fixtures' traces (those of other files are ignored)."""
    items = traces.items() if isinstance(traces, Mapping) else traces
    mine = {name: cov for name, cov in items if cov is not None and cov.file == file}
    return FileCoverage(file, analyse(source), mine)


def combine_all(sources: Mapping[str, str], traces: Iterable[tuple[str, Coverage]]
                ) -> list[FileCoverage]:
    """Every file of `sources` (file -> its text), in name order, with its fixtures' traces;
    a file no fixture ran is reported with nothing executed."""
    pairs = [(n, c) for n, c in traces if c is not None]
    return [combine(f, sources[f], pairs) for f in sorted(sources)]
