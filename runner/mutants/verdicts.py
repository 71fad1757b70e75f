"""What a mutants run found: one record per mutant, in the shape every front end shows
(`stepsmith mutants --format json`, the language server's `stepsmith/mutants`, MCP).

Statuses: `killed` (a fixture noticed: `killed_by` is its node id), `survived` (no fixture
noticed, or none reaches the line), `timeout` (a fixture's run hit the CPU or wall limit:
counted as killed, and said so) and `error` (the mutant could not be run at all).
"""

from __future__ import annotations

from dataclasses import dataclass, field

STATUSES = ("killed", "survived", "timeout", "error")
LIMITS = ("cpu_limit", "wall_limit")  # a fixture's run stopped there: status `timeout`
NOT_REACHED = "no fixture runs this line"


@dataclass
class MutantRecord:
    path: str  # the step file as shown
    line: int  # 1-based; columns 0-based code points, end exclusive (as every Span)
    column: int
    end_line: int
    end_column: int
    operator: str
    original: str
    replacement: str
    status: str = "survived"
    killed_by: str | None = None
    fixtures_run: int = 0
    duration_ms: float = 0.0
    steps: list[str] = field(default_factory=list)  # the steps whose code holds the change
    hint: str = ""  # what to record so a fixture notices (survivors)
    note: str = ""  # why this status ("cpu_limit: counted as killed", "no fixture runs ...")
    cached: int = 0  # how many of `fixtures_run` were answered from the cache

    @property
    def noticed(self) -> bool:
        return self.status in ("killed", "timeout")

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.column,
                "end_line": self.end_line, "end_column": self.end_column,
                "operator": self.operator, "original": self.original,
                "replacement": self.replacement, "status": self.status,
                "killed_by": self.killed_by, "fixtures_run": self.fixtures_run,
                "duration_ms": round(self.duration_ms, 1), "steps": self.steps,
                "hint": self.hint if self.status == "survived" else "",
                "note": self.note, "cached": self.cached}

    def message(self) -> str:
        """The survivor's line in an editor or a CI annotation."""
        what = f"no fixture notices if `{self.original}` becomes `{self.replacement}` here"
        if self.note == NOT_REACHED:
            return f"{what} ({NOT_REACHED})"
        if self.hint.startswith("no fixture notices"):
            return self.hint
        return f"{what}; {self.hint}" if self.hint else what


@dataclass(frozen=True)
class OptedOut:
    path: str
    line: int
    text: str
    mutants: int

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "text": self.text,
                "mutants": self.mutants}


@dataclass
class MutantsReport:
    mutants: list[MutantRecord] = field(default_factory=list)
    opted_out: list[OptedOut] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # fixtures left out, steps skipped
    refused: int = 0  # mutants the dialect validator refused: not run
    seconds: float = 0.0
    baseline_runs: int = 0  # fixture runs on the unmutated code (coverage)
    blocked: int = 0  # workflows not mutated because of their check problems (in `notes`)
    cancelled: bool = False
    # (not in the JSON) the baseline judged on, for the next run's guess (app/mutants.py):
    # (manifest, step id, case) -> (step file's text, fixture sha256, statement lines), passing
    baselines: dict = field(default_factory=dict)
    guessed: int = 0  # fixtures judged first on a guessed baseline (checked after)
    rejudged: bool = False  # a guess was not the real baseline: judged again on the real one

    def ordered(self) -> list[MutantRecord]:
        """Survivors first, then errors, timeouts and kills; by file and position in each."""
        rank = {"survived": 0, "error": 1, "timeout": 2, "killed": 3}
        return sorted(self.mutants, key=lambda m: (rank[m.status], m.path, m.line, m.column,
                                                   m.operator, m.replacement))

    @property
    def counts(self) -> dict[str, int]:
        return {s: sum(m.status == s for m in self.mutants) for s in STATUSES}

    @property
    def score(self) -> float:
        """Percent of the mutants that ran to a verdict which a fixture noticed (a timeout
        counts as noticed); 100 when there is none."""
        c = self.counts
        judged = len(self.mutants) - c["error"]
        return 100.0 * (c["killed"] + c["timeout"]) / judged if judged else 100.0

    @property
    def survived(self) -> bool:
        return any(m.status == "survived" for m in self.mutants)

    def summary(self) -> dict:
        return {"mutants": len(self.mutants), **self.counts, "seconds": round(self.seconds, 3),
                "score": round(self.score, 1), "refused": self.refused,
                "opted_out": sum(o.mutants for o in self.opted_out),
                "fixture_runs": sum(m.fixtures_run - m.cached for m in self.mutants),
                "baseline_runs": self.baseline_runs, "blocked": self.blocked,
                "cancelled": self.cancelled}

    def to_json(self) -> dict:
        return {"mutants": [m.to_json() for m in self.ordered()], "summary": self.summary(),
                "opted_out": [o.to_json() for o in self.opted_out], "notes": list(self.notes)}

    def of_step(self, step_id: str) -> list[MutantRecord]:
        return [m for m in self.mutants if step_id in m.steps]
