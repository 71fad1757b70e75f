"""The determinism check (`stepsmith test --repeat N`): N results of the same invocation,
each from its own fresh sandbox, must agree on everything the step produced. Pure.

Compared: status, output, error (type, message, traceback), effects, stdout and problems;
not the parent's measurements (duration, exit status) nor the advisory trace. The sandbox
pins what would differ between runs (clock, hash seed, addresses, the module `random`), so a
disagreement is the step's own doing, or an escape from the dialect (tests/sandbox).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stepsmith.runner.fixtures.compare import Difference, diff_values

COMPARED = ("status", "output", "error", "effects", "stdout", "problems")


def observable(result: Any) -> dict:
    """The part of a StepResult (or its to_json dict) that must be the same on every run."""
    d = result if isinstance(result, dict) else result.to_json()
    return {k: d.get(k) for k in COMPARED}


@dataclass(frozen=True)
class Disagreement:
    """Runs of one invocation that did not all agree.

    groups: run indices (0-based) that agree with each other, in order of first appearance
    (groups[0] holds run 0). differences: run `first` (groups[0][0]) against run `other`
    (groups[1][0]), paths like "output.total" / "status"."""

    groups: tuple[tuple[int, ...], ...]
    first: int
    other: int
    differences: tuple[Difference, ...]

    def text(self) -> str:
        runs = "; ".join("runs " + ", ".join(str(i + 1) for i in g) for g in self.groups)
        lines = [f"the step is not deterministic: {len(self.groups)} different results ({runs})",
                 f"run {self.first + 1} vs run {self.other + 1}:"]
        lines += [f"  {d}" for d in self.differences]
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"groups": [list(g) for g in self.groups], "first": self.first,
                "other": self.other, "differences": [d.to_json() for d in self.differences]}


def compare_runs(results: Sequence[Any]) -> Disagreement | None:
    """None when every result agrees with the first; else the typed disagreement."""
    views = [observable(r) for r in results]
    groups: list[list[int]] = []
    reps: list[dict] = []
    for i, v in enumerate(views):
        for g, rep in zip(groups, reps):
            if not diff_values(rep, v, "", limit=1):
                g.append(i)
                break
        else:
            groups.append([i])
            reps.append(v)
    if len(groups) < 2:
        return None
    diffs = diff_values(reps[0], reps[1], "")
    return Disagreement(tuple(tuple(g) for g in groups), groups[0][0], groups[1][0],
                        tuple(diffs))
