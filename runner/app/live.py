"""The live-run use case (issue 12): a step's fixtures run against the text being edited, as
the author types, traced for coverage and values, cancellable as a whole.

`run_live(lw, step_id, source, group=...)` runs every fixture of the step on `source` (the
unsaved buffer; None: the file on disk) in fresh sandboxes (or spares, sandbox/spares.py),
all registered in `group`, so a newer edit's `group.kill()` ends them (nothing is left
running). Each fixture is traced in "values" mode (which includes coverage; the bench shows
it costs the same as "coverage"), so the editor can show coverage of all fixtures and the
values of any one of them without another run. The values stay in this outcome: they are
never put into the result dict that fixtures, pending changes or the store are written from.

`blocked(lw, step_id)`: why no run of the step may start on this text (check problems that
block the step: the editor keeps the last results, marked stale, instead).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from stepsmith.runner.app.invocations import plain_result
from stepsmith.runner.app.suite import (
    Case,
    CaseResult,
    compare,
    run_case,
)
from stepsmith.runner.app.workflow import LoadedWorkflow, build_inputs, invoke, step_code
from stepsmith.runner.errors import InvokeError
from stepsmith.runner.fixtures.compare import describe_result
from stepsmith.runner.sandbox.process import Group, joined

TRACE = "values"


@dataclass
class LiveCase:
    result: CaseResult
    coverage: Any = None  # sandbox.Coverage of the step file (None: not traced / not run)
    values: list | None = None  # [sandbox.LineValue] of this fixture's run


@dataclass
class LiveOutcome:
    step_id: str
    source: str | None  # the text the fixtures ran (None: the step could not be read)
    file: str | None  # the step file (as the trace names it)
    cases: list[LiveCase] = field(default_factory=list)
    cancelled: bool = False
    seconds: float = 0.0

    def traces(self) -> Mapping[str, Any]:
        """{fixture: Coverage} of the fixtures that were traced."""
        return {c.result.case.case: c.coverage for c in self.cases if c.coverage is not None}

    def values_of(self, fixture: str) -> list | None:
        for c in self.cases:
            if c.result.case.case == fixture:
                return c.values
        return None


def blocked(lw: LoadedWorkflow, step_id: str) -> str | None:
    """Why the step's fixtures may not run on this workflow's texts (the check problems that
    block it: its own code and manifest entry, or the whole manifest), or None: a problem
    elsewhere does not stop a step (app/blocking.py)."""
    if not lw.ok:
        from stepsmith.runner.app.blocking import causes

        whole, per_step = causes(lw)
        found = [whole] if whole is not None else per_step.get(step_id, [])
        if found:
            return found[0].lines[0] if found[0].lines else "the workflow has check problems"
    if lw.step(step_id) is None:
        return f"the workflow has no step {step_id!r}"
    return None


def run_live_case(case: Case, source: str | None, trace: str | None = TRACE,
                  repeat: int = 1) -> LiveCase:
    """One fixture on `source` (None: the file on disk), traced; the result dict stays
    free of trace fields. `repeat` > 1: that many runs in fresh sandboxes (the first traced),
    failing with the difference when two disagree (the determinism check)."""
    t0 = time.perf_counter()
    if case.problems or case.fixture is None:
        return LiveCase(CaseResult(case=case, outcome="error", messages=list(case.problems)))
    lw, fx = case.workflow, case.fixture
    step = lw.step(case.step_id)
    if step is None or step.network == "public_egress":
        return LiveCase(run_case(case))  # served from its recording; nothing runs
    try:
        code = step_code(lw, step)
        if source is not None:
            code.source = source
        inputs = build_inputs(step, fx.inputs)
        raws = [invoke(lw, code, inputs, evaluation_time=fx.evaluation_time, seed=fx.seed,
                       trace=trace if i == 0 else None) for i in range(max(1, repeat))]
        raw = raws[0]
    except InvokeError as exc:
        return LiveCase(CaseResult(case=case, outcome="error", messages=[str(exc)]))
    res = plain_result(raw)
    if res.get("status") == "unavailable":
        return LiveCase(CaseResult(case=case, outcome="error", result=res,
                                   messages=describe_result(res) or ["sandbox unavailable"]))
    out = compare(case, res)
    out.duration_ms = res.get("duration_ms") or (time.perf_counter() - t0) * 1000
    out.code_file = (code.rel, code.source.encode("utf-8"))  # what ran: a pending change's code
    if len(raws) > 1:
        from stepsmith.runner.fixtures.repeat import compare_runs

        disagreement = compare_runs(raws)
        if disagreement is not None:
            out.disagreement, out.outcome, out.acceptable = disagreement, "failed", False
            out.messages.append(f"repeat {len(raws)}: " + disagreement.text())
    if getattr(raw, "coverage", None) is not None:
        _warm_shape(code.source, getattr(lw.check, "interpreter", None))
    return LiveCase(out, getattr(raw, "coverage", None), getattr(raw, "values", None))


def _warm_shape(source: str, interp=None) -> None:
    """Analyse the traced text here, on the run's worker thread, so the editor's coverage
    (asked on the server's event loop for the same text) finds it memoised."""
    from stepsmith.runner.coverage.static import analyse

    try:
        analyse(source, interp)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass


def run_live(lw: LoadedWorkflow, step_id: str, source: str | None, *, group: Group,
             pool: Executor | None = None, trace: str | None = TRACE,
             only: Callable[[Case], bool] | None = None) -> LiveOutcome:
    """Run the step's fixtures on `source`; a `group.kill()` from another thread ends them
    (the outcome then says `cancelled` and holds no results)."""
    from stepsmith.runner.app.suite import workflow_cases

    t0 = time.perf_counter()
    cases = [c for c in workflow_cases(lw, collapse=False)
             if c.step_id == step_id and (only is None or only(c))]
    step = lw.step(step_id)
    file = step.code_ref.path if step is not None and step.code_ref is not None else None

    def one(case: Case) -> LiveCase | None:
        if group.killed:
            return None
        with joined(group):
            return run_live_case(case, source, trace)

    ran = list(pool.map(one, cases)) if pool is not None else [one(c) for c in cases]
    if group.killed:  # a killed sandbox's result is no fixture's result: report none
        return LiveOutcome(step_id, source, file, [], cancelled=True,
                           seconds=time.perf_counter() - t0)
    return LiveOutcome(step_id, source, file, [c for c in ran if c is not None],
                       seconds=time.perf_counter() - t0)
