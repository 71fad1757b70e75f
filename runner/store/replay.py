"""Replay: a run's accepted steps re-executed from their stored requests and compared.

``replay_run``: re-executes every accepted step of a run from its STORED request (inputs,
evaluation time, seed; code must still hash to the stored code hash) and compares the fresh
result with the accepted one: a determinism check. Recorded steps are not re-executed.
"""

from __future__ import annotations

from collections.abc import Callable

from stepsmith.runner.fixtures.compare import Difference, diff_values
from stepsmith.runner.fixtures.invoke import (
    InvokeError,
    LoadedWorkflow,
    invoke,
    result_dict,
    step_code,
)
from stepsmith.runner.store.canonical import (
    build_request,
    request_differences,
    request_sha256,
)
from stepsmith.runner.store.db import RequestMismatch, ResultStore
from stepsmith.runner.store.runs import (
    RunError,
    RunReport,
    RunUsageError,
    SandboxUnavailable,
    StepOutcome,
    check_pin,
)


def replay_run(lw: LoadedWorkflow, run_id: str, *, store: ResultStore | None = None,
               on_step: Callable[[StepOutcome], None] | None = None,
               stored_code: bool = False) -> RunReport:
    """`stored_code`: re-execute with the source the store kept (store/audit.py), not the
    checkout's."""
    wf = lw.workflow
    if wf is None:
        raise RunError("the manifest could not be loaded:\n"
                       + "\n".join("  " + x for x in lw.error_lines()))
    check_pin(lw)
    version = int(wf.version)
    own_store = store is None
    store = store or ResultStore.for_workflow(lw.dir)
    report = RunReport(workflow=wf.workflow, version=version, run_id=run_id)

    def emit(o: StepOutcome) -> None:
        report.steps.append(o)
        if on_step:
            on_step(o)

    try:
        rows = store.run_rows(wf.workflow, version, run_id)
        if not rows:
            runs = [f"{r[2]} (v{r[1]})" for r in store.runs(wf.workflow)]
            raise RunUsageError(f"no accepted results for run {run_id!r} of {wf.workflow} "
                                f"v{version}; runs in this store: {', '.join(runs) or 'none'}")
        for row in rows:
            if row.identity != store.identity:
                from stepsmith.runner.store.db import IdentityMismatch

                raise IdentityMismatch(run_id=run_id, step_id=row.step_id, stored=row.identity,
                                       current=store.identity)
            step = lw.step(row.step_id)
            if step is None:
                emit(StepOutcome(row.step_id, "changed", "the step is no longer in the manifest",
                                 None, row.request_sha256))
                continue
            if row.result.get("served_from") == "recording":
                emit(StepOutcome(step.id, "recorded", "served from recording; not re-executed",
                                 row.result, row.request_sha256, served_from="recording"))
                continue
            if step.network == "public_egress":  # a live call is never repeated automatically
                emit(StepOutcome(step.id, "recorded", "public_egress step run live; not "
                                 "re-executed (that would call the network again)", row.result,
                                 row.request_sha256, served_from="execution"))
                continue
            req = row.request
            try:
                if stored_code:
                    from stepsmith.runner.store.audit import stored_step_code

                    code = stored_step_code(store, step, req)
                else:
                    code = step_code(lw, step)
            except InvokeError as exc:
                emit(StepOutcome(step.id, "changed", str(exc), None, row.request_sha256))
                continue
            fresh = build_request(source=code.raw, function=code.function,
                                  inputs=req.get("inputs"),
                                  evaluation_time=req.get("evaluation_time"),
                                  seed=req.get("seed"), timezone=req.get("timezone"))
            fresh_sha = request_sha256(fresh)
            if fresh_sha != row.request_sha256:
                exc = RequestMismatch(run_id=run_id, step_id=step.id, effect_key="",
                                      stored_sha256=row.request_sha256, fresh_sha256=fresh_sha,
                                      differences=request_differences(req, fresh))
                detail = str(exc)
                if req.get("code_hash") != fresh["code_hash"]:  # show what changed in the code
                    from stepsmith.runner.store.audit import code_change

                    diff = code_change(store, req.get("code_hash") or "", code.source, code.rel)
                    if diff:
                        detail += "\nwhat changed in the code since it was accepted:\n" + diff
                emit(StepOutcome(step.id, "changed", detail, None, fresh_sha))
                continue
            res = result_dict(invoke(lw, code, req.get("inputs") or {},
                                     evaluation_time=req.get("evaluation_time"),
                                     seed=req.get("seed"),
                                     timezone=req.get("timezone") or "UTC"))
            if res.get("status") == "unavailable":
                raise SandboxUnavailable(str(res.get("error") or "sandbox unavailable"))
            diffs: list[Difference] = []
            if res.get("status") != "ok":
                diffs.append(Difference("status", "", "status", "ok", res.get("status")))
            else:
                diffs += diff_values(row.result.get("output"), res.get("output"), "output")
                diffs += diff_values(row.result.get("effects") or [], res.get("effects") or [],
                                     "effects")
            emit(StepOutcome(step.id, "differs" if diffs else "same",
                             "the fresh result differs from the accepted one" if diffs else "",
                             res, row.request_sha256, diffs, accepted=row.result))
    finally:
        if own_store:
            store.close()
    return report
