"""Coverage end to end: fixtures run in the real sandbox with the trace on, combined per step
file against its static shape, reported."""

from pathlib import Path

from stepsmith.runner.coverage import report
from stepsmith.runner.coverage.combine import combine
from stepsmith.runner.coverage.static import analyse
from stepsmith.runner.sandbox import run_step

STEP = '''from decimal import Decimal


def total(kind, amounts):
    total = Decimal("0")
    if kind == "credit":
        sign = -1
    else:
        sign = 1
    for amount in amounts:
        total += Decimal(amount) * sign
    return str(total)
'''


def _cov(inputs):
    res = run_step(STEP, "total", inputs, filename="steps/total.py", trace="coverage")
    assert res.status == "ok", res.message
    return res.coverage


def test_one_fixture_for_one_branch_reports_the_other_missing():
    fc = combine("steps/total.py", STEP, {"debit": _cov({"kind": "debit",
                                                          "amounts": ["1", "2"]})})
    assert fc.missing == {7}
    assert fc.missing_arcs == {(6, 7)}
    assert report.missing_text(fc) == "7"  # coverage.py: no 6->7 next to a missing 7
    assert report.text([fc]).splitlines()[2].split() == [
        "steps/total.py", "9", "1", "4", "1", "85%", "7"]
    lcov = report.lcov([fc])
    assert "DA:7,0\n" in lcov and "BRDA:6,0,0,0\n" in lcov and "BRDA:6,0,1,1\n" in lcov


def test_an_empty_loop_and_the_other_branch_complete_it():
    fc = combine("steps/total.py", STEP, {
        "debit": _cov({"kind": "debit", "amounts": ["1"]}),
        "credit-none": _cov({"kind": "credit", "amounts": []}),
    })
    assert fc.missing == set() and fc.missing_arcs == set()
    assert report.to_json([fc])["files"]["steps/total.py"]["fixtures"]["credit-none"][
        "executed_branches"] == [[6, 7], [10, 12]]


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example_runs(trace):
    """(case id, file, source, result) for every runnable fixture of the bundled examples."""
    from stepsmith.runner.app.suite import discover
    from stepsmith.runner.app.workflow import build_inputs, invoke, step_code

    _, cases = discover([EXAMPLES])
    out = []
    for case in cases:
        if case.problems or case.fixture is None:
            continue
        step = case.workflow.step(case.step_id)
        if step.network == "public_egress":
            continue  # served from its recording offline
        code = step_code(case.workflow, step)
        res = invoke(case.workflow, code, build_inputs(step, case.fixture.inputs),
                     evaluation_time=case.fixture.evaluation_time, seed=case.fixture.seed,
                     trace=trace)
        out.append((case.id, code.rel, code.source, res))
    return out


def _module_docstring_lines(src: str) -> set[int]:
    import ast

    body = ast.parse(src).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        return set(range(body[0].lineno, body[0].end_lineno + 1))
    return set()


def test_examples_traced_agree_with_static_analysis_and_results_unchanged():
    """On the bundled examples' fixtures: the result with the trace on is the result with it
    off; every traced line is a statement of the static shape, and every arc the trace takes
    out of a branch line is one of that line's possible arcs."""
    plain = {cid: res for cid, _, _, res in example_runs(None)}
    traced = example_runs("coverage")
    assert len(traced) >= 10
    for cid, rel, src, res in traced:
        off = plain[cid]
        assert (res.status, res.output, res.error, res.effects, res.stdout) == \
            (off.status, off.output, off.error, off.effects, off.stdout), cid
        shape = analyse(src)
        assert res.coverage is not None and res.coverage.file == rel, cid
        # the module docstring runs (`__doc__ = ...`) but, like coverage.py, is no statement
        doc = _module_docstring_lines(src)
        extra = res.coverage.lines - shape.statements
        assert extra <= doc, (cid, extra)
        from_branches = {a for a in res.coverage.arcs if a[0] in shape.branches}
        assert from_branches <= shape.arcs, (cid, from_branches - shape.arcs)
