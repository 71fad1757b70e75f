"""`stepsmith test --coverage` agrees with coverage.py (branch=True).

The same step functions run with the same fixture inputs twice: under coverage.py in-process
on the host (the reference, tests/reference/covref.py) and through stepsmith's real sandboxed
coverage (`stepsmith test --coverage --coverage-json`). Executed and missing lines, executed
and missing branch arcs, every summary number of coverage.py's JSON report (percentages and
their display strings included) and the text table's row (Missing column included) must be
equal, for the bundled examples and for a seeded corpus of generated step files
(tests/reference/covcorpus.py; STEPSMITH_REF_COVERAGE_FILES sets its size and
STEPSMITH_REF_COVERAGE_SEED its seed).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import covcorpus
import covref
import pytest
from stepsmith.runner.validator import validate

pytestmark = pytest.mark.usefixtures("sandbox")

AT = "2026-12-01T07:00:00+00:00"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CORPUS_FILES = int(os.environ.get("STEPSMITH_REF_COVERAGE_FILES", "36"))
CORPUS_SEED = int(os.environ.get("STEPSMITH_REF_COVERAGE_SEED", "19"))


def _plain(value):
    return json.loads(json.dumps(value))


def _expected(value) -> dict:
    if isinstance(value, Exception):  # the fixture expects the error the host raised
        return {"error": {"type": type(value).__name__, "message": str(value)}}
    return {"output": _plain(value), "effects": []}


def _workflow(kit, root: Path, files: dict[str, tuple[str, str, list[str]]],
              cases: list[tuple[str, str, dict, object]]) -> Path:
    """A workflow with one step per file (`files`: stem -> (source, function, params)) and
    a fixture per case ((stem, case name, inputs, expected output))."""
    params = sorted({p for _, _, ps in files.values() for p in ps})
    steps = [{"id": stem, "explanation": "A generated step.", "code": f"steps/{stem}.py:{fn}",
              "inputs": {p: f"sources.{p}" for p in ps}}
             for stem, (_, fn, ps) in sorted(files.items())]
    manifest = kit.demo_manifest(steps=steps, sources={p: {"connection": "ledger"}
                                                       for p in params})
    fixtures = {f"{stem}/{name}": {"inputs": inputs, "evaluation_time": AT,
                                   "expected": _expected(expected)}
                for stem, name, inputs, expected in cases}
    return kit.write_workflow(root, manifest, {f"steps/{s}.py": src
                                               for s, (src, _, _) in files.items()}, fixtures)


def raised_by(ref) -> list:
    """(step, exception) of every call that raised on the host (the reference's own run)."""
    return [(s, out) for s, _, out in ref.outputs if isinstance(out, Exception)]


def stepsmith_agrees(kit, capsys, wf, tmp_path, ref):
    """`stepsmith test --coverage` on `wf`: it passes and its report is the reference's."""
    def cli(*argv):
        code, out, err = kit.cli(capsys, *argv)
        return code, out + err

    code, text, ours = covref.stepsmith(cli, wf, tmp_path)
    assert code == 0, text
    assert covref.compare(ref, ours) == [], text
    return ours


@pytest.fixture
def agree(kit, capsys, tmp_path, monkeypatch):
    """agree(files, calls) -> (reference report, stepsmith report), asserting they agree and
    that every fixture passed (the sandbox returned what the host computed)."""
    monkeypatch.chdir(tmp_path)

    def run(files: dict[str, tuple[str, str, list[str]]], calls: list[tuple[str, str, dict]],
            errors: int = 0):
        ref = covref.reference({s: src for s, (src, _, _) in files.items()},
                               [covref.Call(stem, files[stem][1], inputs)
                                for stem, _, inputs in calls], tmp_path)
        raised = raised_by(ref)
        assert len(raised) == errors, raised  # the corpus returns a value on every input
        cases = [(stem, name, inputs, out)
                 for (stem, name, inputs), (_, _, out) in zip(calls, ref.outputs, strict=True)]
        wf = _workflow(kit, tmp_path / "wf", files, cases)
        return ref, stepsmith_agrees(kit, capsys, wf, tmp_path, ref)

    return run


GENERATOR_LEFT_OPEN = '''def first_big(items, limit):
    found = any(x > limit for x in items)
    rest = (x for x in items if x > limit)
    first = next(rest, None)
    return [found, first]
'''


def test_a_generator_left_unfinished_keeps_the_whole_trace(agree):
    """(a) any() returning early and next(gen, None) leave generators suspended; their
    close used to make one arc with two negative ends and the whole trace was dropped."""
    _, ours = agree({"gen": (GENERATOR_LEFT_OPEN, "first_big", ["items", "limit"])},
                    [("gen", "early", {"items": [1, 5, 3], "limit": 2})])
    s = ours.files["gen"]["summary"]
    assert ours.files["gen"]["missing_lines"] == [] and s["percent_covered"] == 100.0


WITH_ENDS_IN_IF = '''from decimal import localcontext


def rounded(n):
    total = 0
    with localcontext() as ctx:
        ctx.prec = 5
        if n > 3:
            total = 1
    return total
'''


def test_an_if_ending_a_with_block_records_its_false_branch(agree):
    """(b) the false branch of an `if` that ends a `with` block leaves through the `with`
    line (its __exit__); it ran, so it is not missing."""
    _, ours = agree({"w": (WITH_ENDS_IN_IF, "rounded", ["n"])},
                    [("w", "big", {"n": 5}), ("w", "small", {"n": 1})])
    assert ours.files["w"]["missing_branches"] == []
    assert ours.files["w"]["summary"]["percent_covered_display"] == "100"


ONE_LINERS = '''def squash(items, n):
    total = 0
    for x in items: total += x
    while total > 20: total -= 7
    if n > 3: return total
    return -total
'''


def test_one_line_compound_statements_can_reach_100(agree):
    """(c) `for x in y: ...`, `while c: ...`, `if c: return ...` on one line."""
    _, ours = agree({"one": (ONE_LINERS, "squash", ["items", "n"])},
                    [("one", "a", {"items": [1, 2], "n": 5}),
                     ("one", "b", {"items": [30], "n": 1})])
    assert ours.files["one"]["summary"]["percent_covered"] == 100.0
    assert ours.rows["one"]["Missing"] == ""


PICK = '''def pick(n, items):
    if n > 3:
        return "big"
    for x in items:
        if x:
            n += 1
    total = n
    return total
'''


def test_missing_column_and_display_percent_are_coverage_pys(agree):
    """(d) no `2->3` next to a missing 3; the JSON display is "71" (the table adds "%")."""
    ref, ours = agree({"pick": (PICK, "pick", ["n", "items"])},
                      [("pick", "small", {"n": 1, "items": [0]})])
    assert ours.rows["pick"]["Missing"] == "3, 6" == ref.rows["pick"]["Missing"]
    s = ours.files["pick"]["summary"]
    assert s["percent_covered_display"] == "71" and ours.rows["pick"]["Cover"] == "71%"


NO_BRANCH = '''def clamp(n):
    if n > 100:  # pragma: no branch
        n = 100
    while n > 10:  # pragma: no branch
        n -= 10
    if n < 0:
        n = 0
    return n
'''


def test_pragma_no_branch_lines_have_no_missing_branch(agree):
    """`# pragma: no branch` (coverage.py's default partial-branch pragma): the line's untaken
    arc is not missing; the `if` without it still is."""
    ref, ours = agree({"nb": (NO_BRANCH, "clamp", ["n"])}, [("nb", "big", {"n": 150})])
    assert ours.files["nb"]["missing_branches"] == [[6, 7]]
    assert ours.files["nb"]["summary"]["num_partial_branches"] == 1
    assert ours.rows["nb"]["Missing"] == ref.rows["nb"]["Missing"] == "7"


RAISES = '''def checked(n):
    if n < 0:
        raise ValueError("negative")
    try:
        return 10 // n
    finally:
        n += 1
'''


def test_fixtures_that_raise_agree(agree):
    """Leaving through an exception (raised, and through a finally) is an exit arc too."""
    _, ours = agree({"raises": (RAISES, "checked", ["n"])},
                    [("raises", "neg", {"n": -1}), ("raises", "zero", {"n": 0})], errors=2)
    assert ours.files["raises"]["missing_lines"] == []


def test_generated_corpus_agrees(agree):
    """Every file of a seeded corpus: lines, arcs, partial branches, percentages."""
    gens = [covcorpus.generate(CORPUS_SEED, i) for i in range(CORPUS_FILES)]
    for g in gens:
        assert validate(g.source) == [], g.source
    files = {g.stem: (g.source, "step", ["items", "n", "word"]) for g in gens}
    calls = [(g.stem, f"c{i}", inputs) for g in gens for i, inputs in enumerate(g.cases)]
    _, ours = agree(files, calls)
    print(f"\ncoverage agreement (generated corpus): {len(ours.files)} files, "
          f"{len(calls)} fixtures, {sum(f['summary']['num_branches'] for f in ours.files.values())}"
          " branch arcs")
    assert len(ours.files) == CORPUS_FILES
    # the corpus exercises what it says: partial branches, unrun lines and 100% files
    sums = [f["summary"] for f in ours.files.values()]
    assert any(s["num_partial_branches"] for s in sums) and any(s["missing_lines"] for s in sums)


@pytest.mark.parametrize("example", ["invoice-matching", "payment-chasing"])
def test_bundled_examples_agree(example, kit, capsys, tmp_path, monkeypatch):
    """Every step file of the examples, over every fixture `stepsmith test` runs (a
    public_egress step's fixtures are served from their recordings: nothing of its file runs
    on either side)."""
    import shutil

    from stepsmith.runner.app.suite import discover
    from stepsmith.runner.app.workflow import build_inputs, clock_timezone, step_code
    from stepsmith.runner.sandbox.connections import placeholders

    monkeypatch.chdir(tmp_path)
    wf = tmp_path / example
    shutil.copytree(EXAMPLES / example, wf, ignore=shutil.ignore_patterns(".stepsmith"))
    (lw,), cases = discover([wf])
    sources, calls = {}, []
    for step in lw.workflow.steps:
        code = step_code(lw, step)
        sources[Path(code.rel).stem] = code.source
    for case in cases:
        assert not case.problems and case.fixture is not None, case.problems
        step = lw.step(case.step_id)
        if step.network == "public_egress":
            continue
        fx = case.fixture
        calls.append(covref.Call(
            Path(step.code_ref.path).stem, step.code_ref.function,
            build_inputs(step, fx.inputs), fx.evaluation_time and str(fx.evaluation_time),
            clock_timezone(lw),
            effects=bool(step.effects), connections=placeholders(step.connections)
            if step.connections else None))
    ref = covref.reference(sources, calls, tmp_path)
    expect_error = [c for c in cases if c.fixture.expected.error is not None]
    raised = raised_by(ref)
    assert len(raised) == len(expect_error), raised
    ours = stepsmith_agrees(kit, capsys, wf, tmp_path, ref)
    print(f"\ncoverage agreement ({example}): {len(ours.files)} files, {len(calls)} fixtures")
    assert len(ours.files) == len(sources) >= 4 and len(calls) >= 10


def test_the_editors_values_trace_records_the_same_arcs():
    """The editor's live runs trace in "values" mode: its arcs (hence its coverage) are the
    "coverage" mode's, which agree with coverage.py above."""
    from stepsmith.runner.sandbox import run_step

    compared = 0
    for g in (covcorpus.generate(CORPUS_SEED, i) for i in range(6)):
        for inputs in g.cases:
            runs = [run_step(g.source, "step", inputs, filename="steps/g.py", trace=mode)
                    for mode in ("coverage", "values")]
            assert [r.status for r in runs] == ["ok", "ok"], [r.message for r in runs]
            assert runs[0].coverage == runs[1].coverage, g.source
            assert runs[1].values is not None
            compared += 1
    assert compared == 18
