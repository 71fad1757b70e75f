"""One fixture's runs against many mutants, in ONE sandbox (sandbox/forks.py: a forked child
per run, each with a `test` run's limits and seccomp filter), compared as `stepsmith test`
compares them (app/case_run.compare).

A fixture run's cost is mostly its sandbox's start-up (bwrap, the interpreter, the harness):
the step's own work is a few milliseconds. Mutants of one step run the same fixtures, so
sharing the start-up is what makes judging them cheap. Every batch begins with a CONTROL run:
the fixture on the unmutated code, in the same sandbox. Its baseline passed in a fresh
sandbox; should the control not pass here (a result that depends on something a forked child
sees differently, such as a memory address in a repr), the batch's verdicts are not trusted
and its runs go to fresh sandboxes one by one (app/case_run.run_case), as before.
"""

from __future__ import annotations

from stepsmith.runner.app.suite import Case, CaseResult


def _prepared(case: Case):
    """The case's sandbox.Prepared run, or its CaseResult when it ends before a sandbox."""
    from stepsmith.runner.app.workflow import (
        InvokeError,
        build_inputs,
        step_call,
        step_code,
    )
    from stepsmith.runner.sandbox import prepare_step

    lw, fx = case.workflow, case.known_fixture()
    step = lw.known_step(case.step_id)
    try:
        code = step_code(lw, step)
        inputs = build_inputs(step, fx.inputs)
        call = step_call(lw, code, evaluation_time=fx.evaluation_time, seed=fx.seed)
    except InvokeError as exc:
        return CaseResult(case=case, outcome="error", messages=[str(exc)])
    return prepare_step(code.source, code.function, inputs, **call)


def _compared(case: Case, raw) -> CaseResult:
    """A StepResult read as `run_case` reads its sandbox's answer."""
    from stepsmith.runner.app.case_run import compare
    from stepsmith.runner.app.invocations import plain_result
    from stepsmith.runner.fixtures.compare import describe_result

    res = plain_result(raw)
    if res.get("status") == "unavailable":
        return CaseResult(case=case, outcome="error", result=res,
                          messages=describe_result(res) or ["sandbox unavailable"],
                          duration_ms=float(res.get("duration_ms") or 0.0))
    out = compare(case, res)
    out.duration_ms = float(res.get("duration_ms") or 0.0)
    return out


def run_batch(runs: list[tuple[Case, Case]]) -> list[CaseResult]:
    """Each (fixture, that fixture with a mutant's workflow) run in one sandbox, after a
    control run of each fixture on the unmutated code; their results in order. The runs of
    a fixture whose control does not pass there go to fresh sandboxes."""
    from stepsmith.runner.app.case_run import run_case
    from stepsmith.runner.sandbox.forks import run_forked
    from stepsmith.runner.sandbox.result import StepResult

    controls = list({c.id: c for c, _m in runs}.values())
    cases = controls + [m for _c, m in runs]
    items = [_prepared(c) for c in cases]
    runnable = [p for p in items if not isinstance(p, CaseResult | StepResult)]
    answers = iter(run_forked(runnable))
    results = [p if isinstance(p, CaseResult) else
               _compared(c, p if isinstance(p, StepResult) else next(answers))
               for c, p in zip(cases, items, strict=True)]
    trusted = {c.id for c, r in zip(controls, results, strict=False) if r.outcome == "passed"}
    return [r if c.id in trusted else run_case(m)
            for (c, m), r in zip(runs, results[len(controls):], strict=True)]
