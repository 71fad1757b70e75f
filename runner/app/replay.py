"""Replay: a run's accepted steps re-executed from their stored requests and compared.

``replay_run``: re-executes every accepted step of a run from its STORED request (inputs,
evaluation time, seed) and compares the fresh result with the accepted one: a determinism
check. A step whose code changed since (a different request hash) is "changed": it is still
re-executed, with today's code on the stored request, so the report shows what the edit does
to the accepted output beside the code diff (as cargo-insta shows a snapshot's diff). Recorded
and live public_egress steps are not re-executed.
"""

from __future__ import annotations

from collections.abc import Callable

from stepsmith.runner.app.audit import code_change, stored_step_code
from stepsmith.runner.app.stored_runs import (
    RunReport,
    StepOutcome,
    check_pin,
    workflow_store,
)
from stepsmith.runner.app.workflow import LoadedWorkflow, invoke, result_dict, step_code
from stepsmith.runner.errors import InvokeError, Refused, SandboxUnavailable, UsageError
from stepsmith.runner.fixtures.compare import Difference, diff_values
from stepsmith.runner.store.canonical import (
    build_request,
    request_differences,
    request_sha256,
)
from stepsmith.runner.store.db import IdentityMismatch, ResultStore


def replay_run(lw: LoadedWorkflow, run_id: str, *, store: ResultStore | None = None,
               on_step: Callable[[StepOutcome], None] | None = None,
               stored_code: bool = False) -> RunReport:
    """`stored_code`: re-execute with the source the store kept (app/audit.py), not the
    checkout's."""
    wf = lw.workflow
    if wf is None:
        raise Refused("the manifest could not be loaded:\n"
                       + "\n".join("  " + x for x in lw.error_lines()))
    check_pin(lw)
    version = int(wf.version)
    own_store = store is None
    store = store or workflow_store(lw)
    report = RunReport(workflow=wf.workflow, version=version, run_id=run_id)

    def emit(o: StepOutcome) -> None:
        report.steps.append(o)
        if on_step:
            on_step(o)

    try:
        rows = store.run_rows(wf.workflow, version, run_id)
        if not rows:
            runs = [f"{r[2]} (v{r[1]})" for r in store.runs(wf.workflow)]
            raise UsageError(f"no accepted results for run {run_id!r} of {wf.workflow} "
                                f"v{version}; runs in this store: {', '.join(runs) or 'none'}")
        for row in rows:
            if row.identity != store.identity:
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
            changes: list[str] = []
            if fresh_sha != row.request_sha256:
                changes, detail = _what_changed(req, fresh, code.rel, run_id)
                code_diff = ""
                if "code" in changes:  # show what changed in the code
                    code_diff = code_change(store, req.get("code_hash") or "", code.source,
                                            code.rel)
            res = result_dict(invoke(lw, code, req.get("inputs") or {},
                                     evaluation_time=req.get("evaluation_time"),
                                     seed=req.get("seed"),
                                     timezone=req.get("timezone") or "UTC"))
            if res.get("status") == "unavailable":
                raise SandboxUnavailable("the sandbox is unavailable: "
                                         + str(res.get("error") or "sandbox unavailable"))
            diffs: list[Difference] = []
            if res.get("status") != "ok":
                diffs.append(Difference("status", "", "status", "ok", res.get("status")))
            else:
                diffs += diff_values(row.result.get("output"), res.get("output"), "output")
                diffs += diff_values(row.result.get("effects") or [], res.get("effects") or [],
                                     "effects")
            if changes:  # the edit's effect on the output, re-executed on the stored request
                emit(StepOutcome(step.id, "changed", detail, res, fresh_sha, diffs,
                                 accepted=row.result, code_diff=code_diff, changes=changes,
                                 reexecuted=True, request=req))
                continue
            emit(StepOutcome(step.id, "differs" if diffs else "same",
                             "the fresh result differs from the accepted one" if diffs else "",
                             res, row.request_sha256, diffs, accepted=row.result,
                             reexecuted=True, request=req))
    finally:
        if own_store:
            store.close()
    return report


def _what_changed(stored: dict, fresh: dict, rel: str, run_id: str) -> tuple[list[str], str]:
    """What differs between the accepted request and today's, as typed names ("code",
    "function", or the request field) and one line in the author's terms (no hashes: the
    outcome line carries the request's, shortened)."""
    changes, words = [], []
    if stored.get("code_hash") != fresh.get("code_hash"):
        changes.append("code")
        words.append(f"the code in {rel} changed")
    if stored.get("function") != fresh.get("function"):
        changes.append("function")
        words.append(f"the step calls {fresh.get('function')}() (it was "
                     f"{stored.get('function')}())")
    rest = {k: v for k, v in stored.items() if k not in ("code_hash", "function")}
    fresh_rest = {k: v for k, v in fresh.items() if k not in ("code_hash", "function")}
    for line in request_differences(rest, fresh_rest):
        changes.append(line.split(" ", 1)[0])
        words.append(line)
    return changes, f"{' and '.join(words)} since run {run_id!r} was accepted"
