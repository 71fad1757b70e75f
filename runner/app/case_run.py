"""Running cases: the one engine every front end runs fixtures through (`stepsmith test`,
`run`, MCP, the pytest plugin, the editor's run-on-save and run commands, the mutants' fresh
runs). A case runs in a fresh sandbox (or a spare), optionally traced (coverage, or the values
of each line too) and repeated (the determinism check), and is compared with its fixture.

`run_cases` runs many in parallel with a progress callback (`on_done`), a stop event, `maxfail`,
a sandbox `Group` a newer edit or a cancel kills at once, and optionally the caller's own thread
pool (the editor bounds all its runs with one). The front ends keep only their progress and
notifications. What the text of a step file is comes from the workflow: `LoadedWorkflow.texts`
holds an editor buffer or a mutant in place of the saved file.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

from stepsmith.runner.app.invocations import invoke_fixture
from stepsmith.runner.app.pending import NOT_ACCEPTABLE
from stepsmith.runner.app.suite import RECORDED_NOTE, Case, CaseResult
from stepsmith.runner.app.workflow import build_inputs, step_code
from stepsmith.runner.display import display_path
from stepsmith.runner.errors import InvokeError
from stepsmith.runner.fixtures.compare import (
    Difference,
    describe_result,
    diff_values,
    is_big,
)
from stepsmith.runner.fixtures.effects import check_effects
from stepsmith.runner.sandbox.process import Group, joined


def compare(case: Case, res: dict) -> CaseResult:
    fx = case.known_fixture()
    exp = fx.expected
    step = case.workflow.step(case.step_id)
    out = CaseResult(case=case, outcome="passed", result=res)
    status = res.get("status")
    diffs: list[Difference] = []
    effects = res.get("effects") or []
    if status != exp.status:
        diffs.append(Difference("status", "", "status", exp.status, status))
        out.messages.extend(describe_result(res))
    elif status == "ok":
        if exp.has_output:  # {"status": "ok"} alone checks only that the step returned
            diffs += diff_values(exp.output, res.get("output"), "output")
            if is_big(exp.output, res.get("output")) and diffs:
                out.big.append(("output", exp.output, res.get("output")))
        expected_effects = exp.effects if exp.effects is not None else []
        ed = diff_values(expected_effects, effects, "effects")
        diffs += ed
        if ed and is_big(expected_effects, effects):
            out.big.append(("effects", expected_effects, effects))
    elif status == "error":
        err = res.get("error") or {}
        want = exp.error or {}
        if "type" in want and want["type"] != err.get("type"):
            diffs.append(Difference("error.type", "", "status", want["type"], err.get("type")))
        if "message" in want and want["message"] not in (err.get("message") or ""):
            diffs.append(Difference("error.message", "", "contains", want["message"],
                                    err.get("message")))
        if exp.effects is not None:
            diffs += diff_values(exp.effects, effects, "effects")
        if diffs:
            out.messages.extend(describe_result(res))
    undeclared = check_effects(case.workflow.workflow, step, effects)
    out.differences = diffs + undeclared
    if out.differences:
        out.outcome = "failed"
        # accepting must give a passing fixture: not over undeclared effects or a refusal,
        # nor over inputs the boundary refuses (InputError): the fixture is what is wrong
        out.acceptable = (not undeclared and status not in NOT_ACCEPTABLE
                          and (res.get("error") or {}).get("type") != "InputError")
    return out


def run_case(case: Case, live: bool = False, *, coverage: bool = False,
             values: bool = False, repeat: int = 1) -> CaseResult:
    """Run one fixture. `coverage`: trace the step file; `values`: its lines' values too (the
    editor's trace, which includes coverage); `repeat`: run it that many times in fresh
    sandboxes (the first traced) and fail when the runs disagree."""
    t0 = time.perf_counter()
    if case.problems or case.fixture is None:
        return CaseResult(case=case, outcome="error", messages=list(case.problems))
    lw, fx = case.workflow, case.fixture
    try:
        step = lw.known_step(case.step_id)
        if step.network == "public_egress" and not live:
            return _recorded(case)
        code = step_code(lw, step)
        inputs = build_inputs(step, fx.inputs)
        ran = invoke_fixture(lw, code, inputs, evaluation_time=fx.evaluation_time,
                             seed=fx.seed, live=live, repeat=repeat,
                             trace="values" if values else "coverage" if coverage else None)
        res = ran.result
    except InvokeError as exc:
        return CaseResult(case=case, outcome="error", messages=[str(exc)],
                          duration_ms=(time.perf_counter() - t0) * 1000)
    except Exception as exc:  # noqa: BLE001  an internal failure must not take the other cases down
        return CaseResult(case=case, outcome="error",
                          messages=[f"internal error: {type(exc).__name__}: {exc}"],
                          duration_ms=(time.perf_counter() - t0) * 1000)
    if res.get("status") == "unavailable":
        return CaseResult(case=case, outcome="error", result=res,
                          messages=describe_result(res) or ["sandbox unavailable"],
                          duration_ms=(time.perf_counter() - t0) * 1000)
    out = compare(case, res)
    out.duration_ms = res.get("duration_ms") or (time.perf_counter() - t0) * 1000
    out.code_file = (code.rel, code.raw)  # what ran: a pending change is tied to it
    if ran.coverage is not None:
        out.coverage, out.code = ran.coverage, (display_path(code.path), code.source)
    out.values = ran.values
    if ran.disagreement is not None:
        out.disagreement, out.outcome, out.acceptable = ran.disagreement, "failed", False
        out.messages.append(f"repeat {ran.runs}: " + ran.disagreement.text())
    return out


def _recorded(case: Case) -> CaseResult:
    """A public_egress step without --live: served from its recording, nothing executed."""
    exp = case.known_fixture().expected
    res: dict[str, Any] = {"status": exp.status, "served_from": "recording"}
    if exp.has_output:
        res["output"] = exp.output
    if exp.effects is not None:
        res["effects"] = exp.effects
    return CaseResult(case=case, outcome="recorded", messages=[RECORDED_NOTE], result=res)


def default_jobs() -> int:
    """Parallel sandboxes by default: twice the CPUs. A fixture run is mostly sandbox start-up
    and waiting, so more than one per CPU is faster (bench, 280 fixtures on 2 CPUs: -j 2
    10.3-12.3 s wall, -j 4 7.7-10.1 s, -j 8 6.5-8.0 s); no more than twice, so a step near its
    2 s CPU limit still ends inside the 5 s wall limit when every sandbox is busy."""
    return 2 * (os.cpu_count() or 1)


def run_cases(cases: Iterable[Case], *, jobs: int | None = None, live: bool = False,
              on_done: Callable[[CaseResult], None] | None = None,
              maxfail: int | None = None, coverage: bool = False, values: bool = False,
              repeat: int = 1, stop: threading.Event | None = None,
              group: Group | None = None, executor: Executor | None = None
              ) -> list[CaseResult]:
    """Run cases in parallel (threads; each sandbox is its own process). Order preserved.
    `cases` may be produced while they run (a generator loading workflow after workflow, in
    the calling thread): each starts as soon as it is produced and a worker is free.
    `maxfail`: start no new case once that many failed or errored (pytest's -x/--maxfail;
    cases already running finish); the cases never started are left out of the result.
    `stop` (a threading.Event): set it from outside to start nothing new (a cancelled request).
    `group`: every sandbox joins it; once it is killed no case starts and no case ending
    after the kill is reported (a killed sandbox's answer is no fixture's result).
    `executor`: run on the caller's pool instead of one of `jobs` threads made for this call.
    `on_done` is called on the worker thread that ran the case."""
    stop = stop if stop is not None else threading.Event()
    results: list[CaseResult | None] = []
    failures = [0]
    lock = threading.Lock()

    def one(i: int, case: Case) -> None:
        if stop.is_set() or (group is not None and group.killed):
            return
        if group is None:
            r = run_case(case, live=live, coverage=coverage, values=values, repeat=repeat)
        else:
            with joined(group):
                r = run_case(case, live=live, coverage=coverage, values=values, repeat=repeat)
            if group.killed:  # what a killed sandbox answered is no fixture's result
                return
        results[i] = r
        if maxfail and r.outcome in ("failed", "error"):
            with lock:
                failures[0] += 1
                if failures[0] >= maxfail:
                    stop.set()
        if on_done:
            on_done(r)

    jobs = max(1, jobs or default_jobs())
    if executor is None and (jobs == 1 or (isinstance(cases, list) and len(cases) <= 1)):
        for i, case in enumerate(cases):
            results.append(None)
            one(i, case)
        return [r for r in results if r is not None]
    pool = executor or ThreadPoolExecutor(max_workers=jobs,
                                          thread_name_prefix="stepsmith-fixture")
    try:
        futures = []
        for i, case in enumerate(cases):
            results.append(None)  # before the worker that sets it can start
            futures.append(pool.submit(one, i, case))
        for f in futures:
            f.result()
    except BaseException:  # Ctrl-C, a cancel: start nothing new; running sandboxes end
        stop.set()
        if executor is None:
            pool.shutdown(wait=False, cancel_futures=True)
        raise
    if executor is None:
        pool.shutdown()
    return [r for r in results if r is not None]
