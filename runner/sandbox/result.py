"""The typed StepResult; Limits (the spec's defaults) live in runner/limits.py, re-exported
here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..limits import Limits

if TYPE_CHECKING:
    from .trace import Coverage, LineValue

__all__ = ["STATUSES", "Limits", "StepResult"]

STATUSES = frozenset({
    "ok", "error", "refused", "cpu_limit", "wall_limit", "memory_limit", "output_limit",
    "input_too_large", "unavailable",
})


@dataclass
class StepResult:
    """What one step invocation produced.

    status: one of STATUSES. output: the step's JSON return value (status "ok"). error:
    {"type", "message", "traceback": [{"file", "line", "function", "text"}]} (status "error";
    only frames from the step's own file). problems: validator findings (status "refused";
    `stepsmith.runner.problems.Problem` objects). effects: recorded intents
    [{"effect", "key", "payload"}]. stdout: what the step print()ed (capped). message: a
    one-line human explanation for every non-ok status. Every credential of the run is
    already replaced by "[redacted:<alias>]" in all of these.
    duration_ms is measured by the parent, never reported by the sandbox.
    """

    status: str
    output: Any = None
    error: dict | None = None
    problems: list = field(default_factory=list)
    effects: list = field(default_factory=list)
    duration_ms: float = 0.0
    cpu_ms: float | None = None  # reserved: the parent cannot see the sandbox's CPU time
    stdout: str = ""
    message: str = ""
    exit_status: int | None = None  # bwrap's exit status (diagnostics)
    # only when run_step(trace=...) asked for them (sandbox/trace.py): advisory, for the
    # author; never part of a fixture's expectation
    coverage: Coverage | None = None
    values: list[LineValue] | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> dict:
        probs = []
        for p in self.problems:
            probs.append(p.to_json() if hasattr(p, "to_json") else dict(p))
        out = {
            "status": self.status, "output": self.output, "error": self.error,
            "problems": probs, "effects": self.effects, "duration_ms": self.duration_ms,
            "cpu_ms": self.cpu_ms, "stdout": self.stdout, "message": self.message,
        }
        if self.coverage is not None:  # absent keys when no trace was asked for
            out["coverage"] = self.coverage.to_json()
        if self.values is not None:
            out["values"] = [v.to_json() for v in self.values]
        return out
