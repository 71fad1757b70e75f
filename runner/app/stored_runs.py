"""Whole-workflow runs against the accepted-results store (replay: app/replay.py).

``run_workflow``: steps in manifest order made topological by the wiring
(``steps.<id>.output``); sources come from ``fixtures/_workflow/<CASE>.json``; each step's
result is ACCEPTED (stored in one transaction) before the next step starts. Only ``ok``
results are accepted: a failing step stops the run and nothing is stored for it, so running
the same run id again retries exactly that step and reuses everything accepted before it.
``public_egress`` steps are served from the case's ``recorded`` outputs unless ``live``; the
stored result says ``served_from: "recording"``.

Default run id: the case name. Re-running a case resumes its run; a changed step (code,
inputs, evaluation time, seed) under the same run id is a loud :class:`RequestMismatch` —
pass a new ``--run-id`` to run the changed workflow.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from stepsmith.runner.app.case_walk import CaseWalk, topological_steps
from stepsmith.runner.app.workflow import (
    LoadedWorkflow,
    interpreter,
    known_credentials,
    pin_problem,
    secrets_in,
)
from stepsmith.runner.display import display_text
from stepsmith.runner.errors import InvokeError, Refused, UsageError
from stepsmith.runner.fixtures.compare import Difference, describe_result
from stepsmith.runner.fixtures.effects import check_effects
from stepsmith.runner.fixtures.load import forbidden_fields, load_workflow_case, problem_text
from stepsmith.runner.fixtures.model import WORKFLOW_DIR
from stepsmith.runner.model.grammar import is_case_name
from stepsmith.runner.store.db import ResultStore
from stepsmith.runner.store.identity import runtime_identity
from stepsmith.runner.store.lease import RunLease

RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,199}$")






def _case_files(lw: LoadedWorkflow) -> list[str]:
    folder = lw.dir / "fixtures" / WORKFLOW_DIR
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


def available_cases(lw: LoadedWorkflow) -> list[str]:
    """The workflow cases: files whose stem is a valid case name (others are refused)."""
    return [c for c in _case_files(lw) if is_case_name(c)]


def check_case_name(lw: LoadedWorkflow, case: str) -> None:
    """UsageError unless `case` names an existing fixtures/_workflow/<case>.json."""

    avail = available_cases(lw)
    listing = ", ".join(avail) if avail else (
        f"none (add fixtures/{WORKFLOW_DIR}/<case>.json)")
    refused = [display_text(c) for c in _case_files(lw) if not is_case_name(c)]
    if refused:
        listing += f"; not case names, ignored: {', '.join(refused)}"
    if not is_case_name(case) or ".." in case:
        raise UsageError(f"case name {case!r} must be a file name without a folder "
                            f"(fixtures/{WORKFLOW_DIR}/<case>.json); available: {listing}")
    if not (lw.dir / "fixtures" / WORKFLOW_DIR / f"{case}.json").is_file():
        close = difflib.get_close_matches(case, avail, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UsageError(f"no workflow case {case!r}{hint} (available: {listing})")


def check_run_id(run_id: str) -> None:
    if not RUN_ID.fullmatch(run_id):
        raise UsageError(f"run id {run_id!r}: use letters, digits and . _ : @ + - "
                            "(starting with a letter or digit; at most 200)")


def check_pin(lw: LoadedWorkflow) -> None:
    """UsageError unless the workflow's `python:` pin can be run here: nothing is run or
    reused otherwise (a result is tied to the Python that produced it)."""
    why = pin_problem(lw)
    if why:
        raise UsageError(why)


def workflow_store(lw: LoadedWorkflow) -> ResultStore:
    """The workflow's store, its rows tied to the runtime of the interpreter the workflow pins
    (a row of another interpreter, even of the same release, is refused before any effect)."""

    return ResultStore.for_workflow(lw.dir, identity=runtime_identity(interpreter(lw)))


@dataclass
class StepOutcome:
    step_id: str
    outcome: str  # accepted | reused | failed | recorded(replay) | same | differs | changed
    detail: str = ""
    result: Any = None
    request_sha256: str | None = None
    differences: list[Difference] = field(default_factory=list)
    served_from: str = "execution"
    accepted: Any = None  # replay: the accepted result the fresh one was compared with
    # replay: `reexecuted` when the step ran again; for a changed step, what changed ("code",
    # "function", a request field) and its source's unified diff; it ran with today's code on
    # the stored request, so `differences` is what the edit does to the accepted result
    changes: list[str] = field(default_factory=list)
    code_diff: str = ""
    reexecuted: bool = False
    request: Any = None  # replay: the stored request it was re-executed on (not in JSON)

    def to_json(self) -> dict:
        return {"step": self.step_id, "outcome": self.outcome, "detail": self.detail,
                "request_sha256": self.request_sha256, "served_from": self.served_from,
                "differences": [d.to_json() for d in self.differences], "result": self.result,
                # the accepted result only where it differs from `result` (replay)
                "accepted": self.accepted if self.outcome in ("differs", "changed") else None,
                "changes": self.changes, "code_diff": self.code_diff,
                "reexecuted": self.reexecuted}


@dataclass
class RunReport:
    workflow: str
    version: int
    run_id: str
    steps: list[StepOutcome] = field(default_factory=list)
    attempt: int = 1  # how many processes have taken this run (the run lease)
    took_over_from: str = ""  # the expired holder this process took the run over from

    @property
    def ok(self) -> bool:
        return all(s.outcome in ("accepted", "reused", "same", "recorded") for s in self.steps)

    def to_json(self) -> dict:
        return {"workflow": self.workflow, "version": self.version, "run_id": self.run_id,
                "ok": self.ok, "attempt": self.attempt, "took_over_from": self.took_over_from,
                "steps": [s.to_json() for s in self.steps]}


def load_case(lw: LoadedWorkflow, case: str):
    """The workflow case `fixtures/_workflow/<case>.json`, loaded (UsageError for a name
    that is not one, Refused for a case with problems): what `run` and `record` start from."""
    check_case_name(lw, case)
    path = lw.dir / "fixtures" / WORKFLOW_DIR / f"{case}.json"
    wc, problems = load_workflow_case(path)
    if problems:
        raise Refused("\n".join(problem_text(p) for p in problems))
    return wc


def run_workflow(lw: LoadedWorkflow, case: str, *, run_id: str | None = None,
                 live: bool = False, store: ResultStore | None = None,
                 on_step: Callable[[StepOutcome], None] | None = None,
                 wait: float = 0.0,
                 on_start: Callable[[RunReport], None] | None = None) -> RunReport:
    """`wait`: seconds to wait for another process holding this run's lease (LeaseHeld
    after that). `on_start` is called once the lease is held, before the first step."""

    check_pin(lw)  # before any lookup, and before its SM501: the pinned Python is not here
    wf = lw.workflow
    if wf is None or not lw.ok:
        raise Refused("the workflow has check problems:\n"
                       + "\n".join("  " + x for x in lw.error_lines()))
    wc = load_case(lw, case)
    run_id = case if run_id is None else run_id
    check_run_id(run_id)
    version = int(wf.version)
    lease = RunLease(lw.dir, wf.workflow, version, run_id)
    lease.acquire(wait)
    own_store = store is None
    try:
        store = store or workflow_store(lw)
    except BaseException:
        lease.release()
        raise
    report = RunReport(workflow=wf.workflow, version=version, run_id=run_id,
                       attempt=lease.attempt,
                       took_over_from=lease.took_over.describe() if lease.took_over else "")
    if on_start:
        on_start(report)

    def emit(o: StepOutcome) -> None:
        report.steps.append(o)
        if on_step:
            on_step(o)

    try:
        walk = CaseWalk(lw, case, wc, live=live)
        for turn in walk:
            lease.renew()
            step, inputs = turn.step, turn.inputs
            prepared = turn.prepared()
            if prepared is None:  # every upstream output is kept, or the run stopped
                emit(StepOutcome(step.id, "failed", turn.error or "an upstream step has no output"))
                break
            bad_fields = forbidden_fields(inputs)
            if bad_fields:  # inputs are stored verbatim: never a credential-like field
                emit(StepOutcome(step.id, "failed", "its inputs carry forbidden field names at "
                                 + ", ".join(bad_fields) + "; nothing stored"))
                break
            code, request, sha = prepared
            stored = store.lookup(wf.workflow, version, run_id, step.id, request)  # may raise
            if stored is not None:
                walk.outputs[step.id] = stored.result.get("output")
                emit(StepOutcome(step.id, "reused", f"accepted {stored.accepted_at}",
                                 stored.result, sha,
                                 served_from=stored.result.get("served_from", "execution")))
                continue
            try:
                ran = walk.run(turn)
            except InvokeError as exc:  # no recording; live: which credential is missing
                emit(StepOutcome(step.id, "failed", str(exc), None, sha))
                break
            res, granted = ran.result, ran.granted
            if res.get("status") != "ok":
                emit(StepOutcome(step.id, "failed",
                                 "\n".join([f"status {res.get('status')}"]
                                           + describe_result(res)), res, sha))
                break
            effects: list[dict] = res.get("effects") or []
            result: dict[str, Any] = {"status": "ok", "output": res.get("output"),
                                      "effects": effects, "served_from": ran.served_from}
            bad = check_effects(wf, step, effects)
            if bad:
                emit(StepOutcome(step.id, "failed", "; ".join(map(str, bad)), result, sha))
                break
            leaked = secrets_in(result, {**granted, **known_credentials(lw, step)})
            if leaked:
                emit(StepOutcome(step.id, "failed", "the result contains the credential of "
                                 f"{', '.join(leaked)}; not accepted", None, sha))
                break
            acc = store.accept(workflow=wf.workflow, version=version, run_id=run_id,
                               step_id=step.id, request=request, result=result,
                               effects=effects, source=code.source, filename=code.rel)
            walk.outputs[step.id] = acc.result.get("output")
            if acc.reused:
                emit(StepOutcome(step.id, "reused",
                                 f"accepted concurrently by another run at {acc.accepted_at}",
                                 acc.result, sha, served_from=ran.served_from))
            else:
                emit(StepOutcome(step.id, "accepted", "", acc.result, sha,
                                 served_from=ran.served_from))
    finally:
        lease.release()
        if own_store:
            store.close()
    return report


__all__ = [
    "RunReport",
    "StepOutcome",
    "run_workflow",
    "topological_steps",
]
