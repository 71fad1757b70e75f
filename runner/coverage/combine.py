"""Per-fixture coverage (`sandbox.Coverage`, one per invocation) combined per step file,
against the file's static shape (`static.analyse`, coverage.py's own analysis), so what no
fixture ran can be named: missing statements, and branch arcs no fixture took. The numbers
are coverage.py's (`coverage.results.Analysis` and `Numbers`, branch=True). Pure functions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from stepsmith.runner.codeshape import Arc, StepFileShape
from stepsmith.runner.coverage.static import analyse
from stepsmith.runner.sandbox.trace import Coverage


@dataclass(frozen=True)
class Ran:
    """One fixture's trace translated onto statements (`StepFileShape.translate`)."""

    lines: frozenset[int]
    arcs: frozenset[Arc]


@dataclass(frozen=True)
class FileCoverage:
    """One step file's coverage over a set of fixtures (`fixtures`: name -> its raw trace;
    `ran`: name -> that trace translated)."""

    file: str
    shape: StepFileShape
    fixtures: Mapping[str, Coverage]
    ran: Mapping[str, Ran] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.ran and self.fixtures:
            object.__setattr__(self, "ran", {
                name: Ran(*self.shape.translate(c.lines, c.arcs, c.truncated))
                for name, c in self.fixtures.items()})

    @property
    def statements(self) -> frozenset[int]:
        return self.shape.statements

    @property
    def executed(self) -> frozenset[int]:
        """Every statement some fixture ran."""
        return frozenset().union(*(r.lines for r in self.ran.values()))

    @property
    def missing(self) -> frozenset[int]:
        return self.shape.statements - self.executed

    @property
    def executed_arcs(self) -> frozenset[Arc]:
        """Every arc some fixture took (translated; branch or not, possible or not)."""
        return frozenset().union(*(r.arcs for r in self.ran.values()))

    @property
    def taken_arcs(self) -> frozenset[Arc]:
        """Possible branch arcs some fixture took (coverage.py's `executed_branches`)."""
        return frozenset(a for a in self.executed_arcs & self.shape.possible
                         if a[0] in self.shape.branches)

    @property
    def missing_arcs(self) -> frozenset[Arc]:
        """Branch arcs no fixture took, also those of lines that never ran (coverage.py's
        `missing_branches`; a `# pragma: no branch` line has none)."""
        return frozenset(a for a in self.shape.arcs - self.executed_arcs
                         if a[0] not in self.shape.no_branch)

    @property
    def partial_arcs(self) -> frozenset[Arc]:
        """Untaken arcs of branch lines that did run."""
        missing = self.missing
        return frozenset(a for a in self.missing_arcs if a[0] not in missing)

    @property
    def partial_branches(self) -> int:
        """coverage.py's BrPart: the untaken arcs of branch lines that ran (arcs, not lines)."""
        return len(self.partial_arcs)

    @property
    def num_branches(self) -> int:
        return len(self.shape.arcs)

    @property
    def covered_branches(self) -> int:
        return self.num_branches - len(self.missing_arcs)

    @property
    def percent(self) -> float:
        total = len(self.statements) + self.num_branches
        if not total:
            return 100.0
        return 100.0 * (len(self.executed) + self.covered_branches) / total

    @property
    def percent_statements(self) -> float:
        n = len(self.statements)
        return 100.0 * len(self.executed) / n if n else 100.0

    @property
    def percent_branches(self) -> float:
        n = self.num_branches
        return 100.0 * self.covered_branches / n if n else 100.0

    def fixture_hits(self, line: int) -> int:
        return sum(1 for r in self.ran.values() if line in r.lines)

    def arc_hits(self, arc: Arc) -> int:
        return sum(1 for r in self.ran.values() if arc in r.arcs)


def combine(file: str, source: str, traces: Mapping[str, Coverage] | Iterable[tuple[str, Coverage]],
            interp=None) -> FileCoverage:
    """`file`'s coverage from its fixtures' traces (those of other files are ignored), on the
    shape `interp` (the pinned interpreter; None: this one) parses `source` into."""
    items = traces.items() if isinstance(traces, Mapping) else traces
    mine = {name: cov for name, cov in items if cov is not None and cov.file == file}
    return FileCoverage(file, analyse(source, interp), mine)


def combine_all(sources: Mapping[str, str], traces: Iterable[tuple[str, Coverage]]
                ) -> list[FileCoverage]:
    """Every file of `sources` (file -> its text), in name order, with its fixtures' traces;
    a file no fixture ran is reported with nothing executed."""
    pairs = [(n, c) for n, c in traces if c is not None]
    return [combine(f, sources[f], pairs) for f in sorted(sources)]
