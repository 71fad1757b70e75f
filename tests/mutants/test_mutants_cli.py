"""`stepsmith mutants` end to end on real sandboxes: the boundary survivor that the issue
describes, killed once the boundary fixture is recorded; exit codes, formats, the cache, the
opt-out, a looping mutant stopped by the limits, nothing written to the workflow folder."""

import copy
import json

import pytest
from stepsmith.runner.app.shapes import MutantsReport

pytestmark = pytest.mark.usefixtures("sandbox")

AT = "2026-12-01T07:00:00+00:00"
APPROVE = '''\
"""Approve a payment up to the limit."""
from decimal import Decimal


def approve(payment, limit):
    amount = Decimal(payment["amount"])
    limit = Decimal(limit)
    approved = amount <= limit
    return {"approved": approved}
'''


def _fixture(amount: str, approved: bool) -> dict:
    return {"inputs": {"payment": {"amount": amount}}, "evaluation_time": AT,
            "expected": {"output": {"approved": approved}, "effects": []}}


def _manifest(kit, steps):
    return kit.demo_manifest(steps=steps)


APPROVE_STEP = {"id": "approve", "explanation": "Approve payments up to the limit.",
                "code": "steps/approve.py:approve",
                "inputs": {"payment": "sources.numbers", "limit": "100"}}


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return kit.write_workflow(tmp_path / "wf", _manifest(kit, [APPROVE_STEP]),
                              {"steps/approve.py": APPROVE},
                              {"approve/small": _fixture("50", True),
                               "approve/large": _fixture("150", False)})


def _json(kit, capsys, *argv):
    code, out, err = kit.cli(capsys, "mutants", *argv, "--format", "json")
    doc = json.loads(out)
    if code in (0, 1):  # a report: its declared shape (runner/app/shapes.py)
        MutantsReport.model_validate(doc)
    return code, doc, err


def test_the_boundary_survives_until_the_boundary_fixture_is_recorded(kit, wf, capsys,
                                                                       tmp_path):
    code, out, _ = kit.cli(capsys, "mutants", "wf")
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith("survived  wf/steps/approve.py:8:23  comparison: `<=` -> `<`")
    assert out.splitlines()[1].strip() == ("no fixture has amount equal to limit: record one "
                                           "at the boundary")
    code, doc, _ = _json(kit, capsys, "wf")
    assert code == 1
    boundary = doc["mutants"][0]
    assert {k: boundary[k] for k in ("path", "line", "column", "end_line", "end_column",
                                     "operator", "original", "replacement", "status",
                                     "killed_by", "fixtures_run")} == {
        "path": "wf/steps/approve.py", "line": 8, "column": 22, "end_line": 8,
        "end_column": 24, "operator": "comparison", "original": "<=", "replacement": "<",
        "status": "survived", "killed_by": None, "fixtures_run": 2}
    assert set(doc["summary"]) >= {"mutants", "killed", "survived", "timeout", "error",
                                   "seconds"}
    assert doc["summary"]["survived"] == 1
    # the author records the case at the boundary, with the real `stepsmith record`
    (tmp_path / "edge.json").write_text(json.dumps({"payment": {"amount": "100"}}))
    rc, _, err = kit.cli(capsys, "record", "wf", "--step", "approve", "--inputs", "edge.json",
                         "--at", AT, "--name", "at-limit")
    assert rc == 0, err
    code, doc, _ = _json(kit, capsys, "wf")
    assert code == 0
    boundary = next(m for m in doc["mutants"] if m["operator"] == "comparison")
    assert boundary["status"] == "killed"
    assert boundary["killed_by"] == "wf::approve::at-limit"
    assert doc["summary"]["survived"] == 0
    # the two fixtures' baselines came from the cache: only the new one ran unmutated
    assert doc["summary"]["baseline_runs"] == 1
    # asked again, every verdict is the cache's: no sandbox runs
    _, again, _ = _json(kit, capsys, "wf")
    assert again["summary"]["fixture_runs"] == 0 and again["summary"]["baseline_runs"] == 0
    assert all(m["cached"] == m["fixtures_run"] > 0 for m in again["mutants"])
    assert [m["status"] for m in again["mutants"]] == [m["status"] for m in doc["mutants"]]


def test_exit_codes_fail_under_and_usage_errors(kit, wf, capsys):
    code, doc, _ = _json(kit, capsys, "wf")
    score = doc["summary"]["score"]
    assert code == 1 and 0 < score < 100
    assert kit.cli(capsys, "mutants", "wf", "--fail-under", str(score - 1))[0] == 0
    assert kit.cli(capsys, "mutants", "wf", "--fail-under", str(score + 1))[0] == 1
    code, _, err = kit.cli(capsys, "mutants", "wf", "--fail-under", "120")
    assert code == 2 and "0 to 100" in err
    code, _, err = kit.cli(capsys, "mutants", "wf", "--step", "aprove")
    assert code == 2 and "did you mean 'approve'" in err
    code, out, _ = kit.cli(capsys, "mutants", "nowhere", "--format", "json")
    assert code == 2 and "error" in json.loads(out)


def test_github_and_sarif_print_survivors_as_notes(kit, wf, capsys):
    code, out, err = kit.cli(capsys, "mutants", "wf", "--output-format", "github")
    assert code == 1
    assert out.splitlines() == [(
        "::notice file=wf/steps/approve.py,line=8,col=23,endLine=8,endColumn=25,"
        "title=surviving mutant (comparison)::no fixture notices if `<=` becomes `<` here; "
        "no fixture has amount equal to limit: record one at the boundary")]
    assert "1 survived" in err
    code, out, _ = kit.cli(capsys, "mutants", "wf", "--output-format", "sarif")
    sarif = json.loads(out)
    (result,) = sarif["runs"][0]["results"]
    assert result["level"] == "note" and result["ruleId"] == "mutant/comparison"
    assert result["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 8, "startColumn": 23, "endLine": 8, "endColumn": 25}
    assert sarif["runs"][0]["tool"]["driver"]["rules"][0]["defaultConfiguration"] == {
        "level": "note"}


def test_sarif_locations_are_uris_as_checks_are(kit, tmp_path, capsys, monkeypatch):
    """A folder name that is not a URI as it stands (space, `%`) is percent-encoded under
    %SRCROOT%, exactly as `check --output-format sarif` writes it (GitHub decodes the uri)."""
    from urllib.parse import unquote

    monkeypatch.chdir(tmp_path)
    kit.write_workflow(tmp_path / "pct%41 wf", _manifest(kit, [APPROVE_STEP]),
                       {"steps/approve.py": APPROVE}, {"approve/small": _fixture("50", True)})
    code, out, _ = kit.cli(capsys, "mutants", "pct%41 wf", "--output-format", "sarif")
    run = json.loads(out)["runs"][0]
    locs = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in run["results"]}
    assert locs == {"pct%2541%20wf/steps/approve.py"}
    assert unquote(locs.pop()) == "pct%41 wf/steps/approve.py"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"


def test_only_the_edited_steps_mutants_run_again(kit, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    other = APPROVE.replace("def approve", "def check").replace("<=", ">=")
    steps = [copy.deepcopy(APPROVE_STEP),
             dict(copy.deepcopy(APPROVE_STEP), id="check", code="steps/check.py:check")]
    kit.write_workflow(tmp_path / "wf", _manifest(kit, steps),
                       {"steps/approve.py": APPROVE, "steps/check.py": other},
                       {"approve/small": _fixture("50", True),
                        "check/large": _fixture("150", True)})
    code, doc, _ = _json(kit, capsys, "wf")
    assert {m["steps"][0] for m in doc["mutants"]} == {"approve", "check"}
    assert all(m["cached"] == 0 for m in doc["mutants"])
    step = tmp_path / "wf/steps/check.py"
    step.write_text(step.read_text().replace("approved = amount >= limit",
                                             "approved = amount >= limit + 0"))
    _, doc, _ = _json(kit, capsys, "wf")
    for m in doc["mutants"]:
        if m["steps"] == ["approve"]:
            assert m["cached"] == m["fixtures_run"] > 0, m
        else:
            assert m["cached"] == 0 and m["fixtures_run"] > 0, m
    assert any(m["steps"] == ["check"] for m in doc["mutants"])


def test_opt_out_is_listed_and_nothing_is_written_to_the_folder(kit, wf, capsys):
    step = wf / "steps/approve.py"
    step.write_text(step.read_text().replace("amount <= limit",
                                             "amount <= limit  # stepsmith: no-mutate"))
    before = sorted(p.relative_to(wf) for p in wf.rglob("*"))
    code, doc, _ = _json(kit, capsys, "wf")
    assert code == 0  # the opted-out boundary does not run
    assert doc["opted_out"] == [{"path": "wf/steps/approve.py", "line": 8,
                                 "text": "approved = amount <= limit  # stepsmith: no-mutate",
                                 "mutants": 1}]
    code, out, _ = kit.cli(capsys, "mutants", "wf")
    assert "opted out wf/steps/approve.py:8  (1 mutant, # stepsmith: no-mutate)" in out
    assert sorted(p.relative_to(wf) for p in wf.rglob("*")) == before  # no pending, no state


LOOP = '''\
def countdown(n):
    left = n
    while left > 0:
        left -= 1
    return {"left": left}
'''


def test_a_looping_mutant_is_stopped_by_the_limits_and_counted_as_killed(kit, tmp_path,
                                                                       capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    step = {"id": "countdown", "explanation": "Count down.", "code": "steps/loop.py:countdown",
            "inputs": {"n": "sources.numbers"}}
    kit.write_workflow(tmp_path / "wf", _manifest(kit, [step]), {"steps/loop.py": LOOP},
                       {"countdown/three": {"inputs": {"n": 3}, "evaluation_time": AT,
                                            "expected": {"output": {"left": 0},
                                                         "effects": []}}})
    code, doc, _ = _json(kit, capsys, "wf", "-k", "three")
    assert code == (1 if doc["summary"]["survived"] else 0)
    forever = next(m for m in doc["mutants"] if m["original"] == "-=")
    assert forever["status"] == "timeout"
    assert forever["note"] in ("cpu_limit: counted as killed", "wall_limit: counted as killed")
    assert forever["killed_by"] == "wf::countdown::three"
    assert doc["summary"]["timeout"] >= 1
    assert doc["summary"]["score"] == pytest.approx(
        100.0 * (doc["summary"]["killed"] + doc["summary"]["timeout"]) / doc["summary"]["mutants"])


def test_a_comment_or_layout_edit_keeps_every_verdict(kit, wf, capsys):
    _, first, _ = _json(kit, capsys, "wf")
    step = wf / "steps/approve.py"
    step.write_text(step.read_text().replace("    approved = amount <= limit\n",
                                             "    approved = amount <= limit  # the rule\n"))
    _, doc, _ = _json(kit, capsys, "wf")
    assert doc["summary"]["fixture_runs"] == 0  # the same syntax tree: judged already
    assert [(m["line"], m["status"]) for m in doc["mutants"]] == \
        [(m["line"], m["status"]) for m in first["mutants"]]
    step.write_text(step.read_text().replace("amount <= limit  # the rule",
                                             "amount <= limit + 0"))
    _, doc, _ = _json(kit, capsys, "wf")
    assert doc["summary"]["fixture_runs"] > 0  # a new tree: judged again


def test_a_fixture_failing_on_the_unmutated_code_judges_nothing(kit, wf, capsys):
    kit.write_fixture(wf, "approve/wrong", _fixture("100", False))  # the code approves 100
    code, doc, _ = _json(kit, capsys, "wf")
    assert doc["notes"] == ["wf::approve::wrong: failed on the unmutated code (output.approved:"
                            " expected false, got true), so it cannot judge a mutant; left out "
                            "(fix it, or review its pending change)"]
    assert not any(m["killed_by"] == "wf::approve::wrong" for m in doc["mutants"])
    boundary = next(m for m in doc["mutants"] if m["operator"] == "comparison")
    assert boundary["status"] == "survived" and boundary["fixtures_run"] == 2
    assert code == 1


PICK = '''\
def pick(x):
    if x > 10:
        return {"size": "big", "capped": min(x, 1000) > 5}
    return {"size": "small", "capped": False}
'''


def test_only_the_fixtures_reaching_a_line_run_against_its_mutants(kit, tmp_path, capsys,
                                                                 monkeypatch):
    monkeypatch.chdir(tmp_path)
    step = {"id": "pick", "explanation": "Big or small.", "code": "steps/pick.py:pick",
            "inputs": {"x": "sources.numbers"}}
    out = {"big": {"size": "big", "capped": True}, "small": {"size": "small", "capped": False}}
    kit.write_workflow(tmp_path / "wf", _manifest(kit, [step]), {"steps/pick.py": PICK}, {
        f"pick/{name}": {"inputs": {"x": x}, "evaluation_time": AT,
                         "expected": {"output": out[name], "effects": []}}
        for name, x in (("big", 20), ("small", 1))})
    _, doc, _ = _json(kit, capsys, "wf")
    line3 = [m for m in doc["mutants"] if m["line"] == 3 and m["status"] == "survived"]
    assert {m["operator"] for m in line3} == {"min-max", "number", "comparison"}
    assert all(m["fixtures_run"] == 1 for m in line3)  # `small` never reaches line 3
    both = [m for m in doc["mutants"] if m["line"] == 2 and m["status"] == "survived"]
    assert both and all(m["fixtures_run"] == 2 for m in both)  # the `if` line: both reach it


def test_a_failed_baseline_is_asked_again_next_time(kit, wf, monkeypatch):
    """A fixture failing on the unmutated code may be the machine's doing (a wall limit on a
    loaded machine): the next run asks it again instead of leaving it out for good."""
    from stepsmith.runner.app import case_run
    from stepsmith.runner.app.mutants import MutantsRequest, run_mutants

    real, flaky = case_run.run_cases, []

    def once_failing(cases, **kw):
        results = real(cases, **kw)
        if kw.get("coverage") and not flaky:  # the first baseline: as if a limit was hit
            flaky.append(True)
            for r in results:
                r.outcome = "failed"
        return results

    monkeypatch.setattr(case_run, "run_cases", once_failing)
    first = run_mutants(MutantsRequest(paths=["wf"], jobs=1))
    assert first.notes and all(not m.fixtures_run for m in first.mutants)
    second = run_mutants(MutantsRequest(paths=["wf"], jobs=1))
    assert second.notes == [] and second.baseline_runs == 2
    assert any(m.status == "killed" for m in second.mutants)


def test_a_wall_limit_verdict_is_asked_again_next_time(kit, wf, monkeypatch):
    """A mutant stopped by the wall limit (load can do that) is judged again next time; one
    that fixtures noticed otherwise comes from the cache."""
    from stepsmith.runner.app import mutant_judge as judge
    from stepsmith.runner.app.mutants import MutantsRequest, run_mutants

    real = judge.run_batch

    def walled(runs):  # the mutants' runs (the baseline's are not judged there)
        results = real(runs)
        for r in results:
            if r.outcome == "failed":
                r.result = {**(r.result or {}), "status": "wall_limit"}
        return results

    monkeypatch.setattr(judge, "run_batch", walled)
    first = run_mutants(MutantsRequest(paths=["wf"], jobs=1))
    assert {m.status for m in first.mutants} == {"timeout", "survived"}
    monkeypatch.setattr(judge, "run_batch", real)
    second = run_mutants(MutantsRequest(paths=["wf"], jobs=1))
    timed_out = [m for m in second.mutants if m.status == "killed"]
    assert timed_out and all(m.cached == 0 for m in timed_out)  # judged again, not cached


def test_the_summary_line_counts_in_english(kit, tmp_path, capsys, monkeypatch):
    # one mutant, one baseline run, one mutant run: singular, as the other counts already are
    monkeypatch.chdir(tmp_path)
    one = '''def flag(n):\n    return n\n'''
    kit.write_workflow(tmp_path / "wf", _manifest(kit, [{
        "id": "flag", "explanation": "Pass the number on.", "code": "steps/flag.py:flag",
        "inputs": {"n": "sources.numbers"}}]), {"steps/flag.py": one},
        {"flag/one": {"inputs": {"n": 3}, "evaluation_time": AT,
                      "expected": {"output": 3, "effects": []}}})
    code, out, _ = kit.cli(capsys, "mutants", "wf", "--no-cache")
    last = out.strip().splitlines()[-1]
    assert last.startswith("1 mutant: 1 killed"), out
    assert "(1 baseline run, 1 mutant run, 0 from the cache)" in last, last
    assert code == 0
