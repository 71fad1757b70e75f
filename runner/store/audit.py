"""Audit replay: re-execute each accepted step of a run with the source the store kept for it
(``stepsmith replay RUN --stored-code``), in the same harness with the same pinned time and
seed, and diff the fresh results against the accepted ones. Unlike the default replay this
works after any edit of the checkout: the code that ran is the code that is replayed.

Also :func:`code_change` — the unified diff between the stored source of a step and today's,
which the default replay shows when a step's code changed.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

from stepsmith.runner.fixtures.compare import Difference, diff_values
from stepsmith.runner.fixtures.invoke import LoadedWorkflow, StepCode, invoke, result_dict
from stepsmith.runner.store.canonical import code_hash
from stepsmith.runner.store.db import ResultStore
from stepsmith.runner.store.runs import (
    RunError,
    RunReport,
    RunUsageError,
    SandboxUnavailable,
    StepOutcome,
)


def code_change(store: ResultStore, stored_hash: str, current: str, rel: str) -> str:
    """Unified diff stored source -> current source ("" when the store lacks it)."""
    kept = store.code_source(stored_hash)
    if kept is None:
        return ""
    filename, source = kept
    return "".join(difflib.unified_diff(
        source.splitlines(keepends=True), current.splitlines(keepends=True),
        fromfile=f"accepted {filename or rel}", tofile=f"current {rel}", n=2))


def _stored_code(store: ResultStore, step, request: dict) -> StepCode | str:
    kept = store.code_source(request.get("code_hash") or "")
    if kept is None:
        return "the store kept no source for this step's code hash"
    filename, source = kept
    if code_hash(source) != request.get("code_hash"):
        return "the stored source does not hash to the request's code hash (tampered store?)"
    from stepsmith.runner.validator import StepUse

    uses = [StepUse(step.id, request.get("function") or "", step.network)]
    return StepCode(step=step, path=Path(filename), rel=filename, source=source,
                    function=str(request.get("function") or ""), uses=uses,
                    raw=source.encode("utf-8"))


def replay_stored(lw: LoadedWorkflow, run_id: str, *, store: ResultStore | None = None,
                  on_step: Callable[[StepOutcome], None] | None = None) -> RunReport:
    wf = lw.workflow
    if wf is None:
        raise RunError("the manifest could not be loaded:\n"
                       + "\n".join("  " + x for x in lw.error_lines()))
    version = int(wf.version)
    own = store is None
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
            sha = row.request_sha256
            if row.result.get("served_from") == "recording" or (
                    step is not None and step.network == "public_egress"):
                emit(StepOutcome(row.step_id, "recorded", "not re-executed (recording or a "
                                 "live network call)", row.result, sha))
                continue
            if step is None:  # the manifest no longer declares it: nothing to grant or check
                emit(StepOutcome(row.step_id, "changed", "the step is no longer in the "
                                 "manifest", None, sha))
                continue
            code = _stored_code(store, step, row.request)
            if isinstance(code, str):
                emit(StepOutcome(step.id, "changed", code, None, sha))
                continue
            req = row.request
            res = result_dict(invoke(lw, code, req.get("inputs") or {},
                                     evaluation_time=req.get("evaluation_time"),
                                     seed=req.get("seed")))
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
                             "the stored code gives a different result now" if diffs else "",
                             res, sha, diffs, accepted=row.result))
    finally:
        if own:
            store.close()
    return report
