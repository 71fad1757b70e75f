"""Whole-workflow use cases: record a workflow case (one fixture per step), run a workflow
(accepting each step's result into the store), replay an accepted run. Each checks the
request before anything runs or is stored and raises the typed errors of
runner/errors.py; the outcomes are the store's and the recorder's typed reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from stepsmith.runner.app.step import ensure_sandbox
from stepsmith.runner.errors import Refused, SandboxUnavailable, UsageError


@dataclass
class CaseRecording:
    workflow: object  # LoadedWorkflow
    case: str
    steps: list = field(default_factory=list)  # fixtures.record_case.RecordedStep

    def count(self, outcome: str) -> int:
        return sum(s.outcome == outcome for s in self.steps)

    @property
    def ok(self) -> bool:
        return not (self.count("failed") or self.count("skipped"))


def _load(path: str):
    from stepsmith.runner.app.workflow import load_workflow
    from stepsmith.runner.errors import InvokeError

    try:
        return load_workflow(path)
    except InvokeError as exc:
        raise UsageError(str(exc)) from exc


def record_case(path: str, case: str, name: str | None = None, *,
                live: bool = False) -> CaseRecording:
    """One fixture per step from the workflow case fixtures/_workflow/<case>.json."""
    from stepsmith.runner.app import record_case as recorder
    from stepsmith.runner.app.record import CASE_NAME
    from stepsmith.runner.app.stored_runs import RunError, RunUsageError, check_case_name
    from stepsmith.runner.app.workflow import pin_problem
    from stepsmith.runner.model.grammar import CASE_RULE

    lw = _load(path)
    try:
        check_case_name(lw, case)
    except RunUsageError as exc:
        raise UsageError(str(exc)) from exc
    name = name or case
    if not CASE_NAME.fullmatch(name):
        raise UsageError(f"fixture name {name!r} is not a case name ({CASE_RULE}); give one "
                         "with --name")
    why = pin_problem(lw)  # no interpreter for the pin: a stop of its own, with the fix
    if why:
        raise UsageError(why)
    if not lw.ok:
        raise Refused("the workflow has check problems:\n"
                      + "\n".join("  " + x for x in lw.error_lines()))
    ensure_sandbox()
    try:
        steps = recorder.record_case(lw, case, name, live=live)
    except recorder.Unavailable as exc:
        raise SandboxUnavailable(f"the sandbox is unavailable: {exc}") from exc
    except RunError as exc:
        raise Refused(str(exc)) from exc
    return CaseRecording(lw, case, steps)


@dataclass(frozen=True)
class RunRequest:
    path: str
    case: str
    run_id: str | None = None  # default: the case name
    live: bool = False
    wait: float = 0.0  # seconds to wait for another process holding the run


@dataclass(frozen=True)
class WorkflowRun:
    workflow: object  # LoadedWorkflow
    report: object  # store.stored_runs.RunReport

    @property
    def total(self) -> int:
        return len(self.workflow.workflow.steps)

    @property
    def complete(self) -> bool:
        return self.report.ok and len(self.report.steps) == self.total


def _store_error(exc: Exception) -> Exception:
    from stepsmith.runner.app.stored_runs import PinMismatch, RunUsageError

    kind = UsageError if isinstance(exc, (RunUsageError, PinMismatch)) else Refused
    return kind(str(exc))


def run_workflow(req: RunRequest, *, on_start: Callable | None = None,
                 on_step: Callable | None = None) -> WorkflowRun:
    """Every step run and accepted before the next one starts (the store's RunReport)."""
    from stepsmith.runner.app import stored_runs
    from stepsmith.runner.store.db import RequestMismatch, StoreError
    from stepsmith.runner.store.lease import LeaseHeld

    lw = _load(req.path)
    try:  # usage errors first, before anything is printed or stored
        stored_runs.check_case_name(lw, req.case)
        stored_runs.check_run_id(req.case if req.run_id is None else req.run_id)
        stored_runs.check_pin(lw)
    except (stored_runs.RunUsageError, stored_runs.PinMismatch) as exc:
        raise UsageError(str(exc)) from exc
    ensure_sandbox()
    if req.wait < 0:
        raise UsageError("--wait must be 0 or more seconds")
    try:
        return WorkflowRun(lw, stored_runs.run_workflow(lw, req.case, run_id=req.run_id,
                                                 live=req.live, wait=req.wait,
                                                 on_start=on_start, on_step=on_step))
    except LeaseHeld as exc:
        raise Refused(str(exc)) from exc
    except RequestMismatch as exc:
        hint = ""
        if exc.code_changed:  # replay re-executes the edited step on the accepted request
            import shlex

            hint = (f" `stepsmith replay {shlex.quote(exc.run_id)} {shlex.quote(req.path)}` "
                    "shows what the change does to the accepted output.")
        raise Refused(str(exc) + hint) from exc
    except stored_runs.SandboxUnavailable as exc:
        raise SandboxUnavailable(f"the sandbox is unavailable: {exc}") from exc
    except (stored_runs.RunError, StoreError) as exc:
        raise _store_error(exc) from exc


def replay(path: str, run_id: str, *, stored_code: bool = False,
           on_step: Callable | None = None):
    """Re-execute a run's accepted steps from their stored requests: the ReplayReport."""
    from stepsmith.runner.app import stored_runs
    from stepsmith.runner.app.replay import replay_run
    from stepsmith.runner.display import display_path
    from stepsmith.runner.store.db import StoreError, store_path

    lw = _load(path)
    try:
        if lw.workflow is not None:
            stored_runs.check_pin(lw)
    except stored_runs.PinMismatch as exc:
        raise UsageError(str(exc)) from exc
    if not store_path(lw.dir).exists():
        raise UsageError(f"no run {run_id!r}: no accepted results in "
                         f"{display_path(store_path(lw.dir))} yet (`stepsmith run-workflow` "
                         "accepts a run)")
    ensure_sandbox()
    try:
        return replay_run(lw, run_id, on_step=on_step, stored_code=stored_code)
    except stored_runs.SandboxUnavailable as exc:
        raise SandboxUnavailable(f"the sandbox is unavailable: {exc}") from exc
    except (stored_runs.RunError, StoreError) as exc:
        raise _store_error(exc) from exc
