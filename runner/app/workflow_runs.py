"""Whole-workflow use cases: record a workflow case (one fixture per step), run a workflow
(accepting each step's result into the store), replay an accepted run. Each checks the
request before anything runs or is stored; every error is one of runner/errors.py, raised
where it is known (here, the store, the lease, the engine), so nothing is converted here.
The outcomes are the store's and the recorder's typed reports."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from stepsmith.runner.app import record_case as recorder
from stepsmith.runner.app import stored_runs
from stepsmith.runner.app.replay import replay_run
from stepsmith.runner.app.step import ensure_sandbox
from stepsmith.runner.app.workflow import LoadedWorkflow, load_workflow
from stepsmith.runner.display import display_path
from stepsmith.runner.errors import Refused, UsageError
from stepsmith.runner.model.grammar import CASE_RE, CASE_RULE
from stepsmith.runner.store.db import RequestMismatch, store_path


@dataclass
class CaseRecording:
    workflow: LoadedWorkflow
    case: str
    steps: list[recorder.RecordedStep] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(s.outcome == outcome for s in self.steps)

    @property
    def ok(self) -> bool:
        return not (self.count("failed") or self.count("skipped"))


def record_case(path: str, case: str, name: str | None = None, *,
                live: bool = False) -> CaseRecording:
    """One fixture per step from the workflow case fixtures/_workflow/<case>.json."""
    lw = load_workflow(path)
    stored_runs.check_case_name(lw, case)
    name = name or case
    if not CASE_RE.fullmatch(name):
        raise UsageError(f"fixture name {name!r} is not a case name ({CASE_RULE}); give one "
                         "with --name")
    stored_runs.check_pin(lw)  # no interpreter for the pin: a stop of its own, with the fix
    if not lw.ok:
        raise Refused("the workflow has check problems:\n"
                      + "\n".join("  " + x for x in lw.error_lines()))
    ensure_sandbox()
    return CaseRecording(lw, case, recorder.record_case(lw, case, name, live=live))


@dataclass(frozen=True)
class RunRequest:
    path: str
    case: str
    run_id: str | None = None  # default: the case name
    live: bool = False
    wait: float = 0.0  # seconds to wait for another process holding the run


@dataclass(frozen=True)
class WorkflowRun:
    workflow: LoadedWorkflow
    report: stored_runs.RunReport

    @property
    def total(self) -> int:
        return len(self.workflow.workflow.steps) if self.workflow.workflow is not None else 0

    @property
    def complete(self) -> bool:
        return self.report.ok and len(self.report.steps) == self.total


def run_workflow(req: RunRequest, *, on_start: Callable | None = None,
                 on_step: Callable | None = None) -> WorkflowRun:
    """Every step run and accepted before the next one starts (the store's RunReport)."""
    lw = load_workflow(req.path)
    # usage errors first, before anything is printed or stored
    stored_runs.check_case_name(lw, req.case)
    stored_runs.check_run_id(req.case if req.run_id is None else req.run_id)
    stored_runs.check_pin(lw)
    ensure_sandbox()
    if req.wait < 0:
        raise UsageError("--wait must be 0 or more seconds")
    try:
        report = stored_runs.run_workflow(lw, req.case, run_id=req.run_id, live=req.live,
                                          wait=req.wait, on_start=on_start, on_step=on_step)
    except RequestMismatch as exc:
        if not exc.code_changed:
            raise
        # the advice names the path as the user gave it: replay re-executes the edited step
        # on the accepted request
        raise Refused(f"{exc} `stepsmith replay {shlex.quote(exc.run_id)} "
                      f"{shlex.quote(req.path)}` shows what the change does to the accepted "
                      "output.") from exc
    return WorkflowRun(lw, report)


def replay(path: str, run_id: str, *, stored_code: bool = False,
           on_step: Callable | None = None) -> stored_runs.RunReport:
    """Re-execute a run's accepted steps from their stored requests: the ReplayReport."""
    lw = load_workflow(path)
    if lw.workflow is not None:
        stored_runs.check_pin(lw)
    if not store_path(lw.dir).exists():
        raise UsageError(f"no run {run_id!r}: no accepted results in "
                         f"{display_path(store_path(lw.dir))} yet (`stepsmith run-workflow` "
                         "accepts a run)")
    ensure_sandbox()
    return replay_run(lw, run_id, on_step=on_step, stored_code=stored_code)
