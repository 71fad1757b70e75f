"""Fixtures are part of the workflow, so `stepsmith check` checks them (codes and
positions): invalid JSON, a fixture format error, `fixtures/<unknown-step>/`, unknown or
missing input keys, a misplaced file, a workflow case naming an unknown source. The new SF
rules are in the catalogue with rationale, an example it refuses and a fix it accepts (tested
like the step rules: each example really gives its code, each fix checks clean). The
pre-commit hook runs on fixture-only commits."""

import json
import re
from pathlib import Path

import pytest
import yaml
from stepsmith.runner import rules
from stepsmith.runner.cli import main
from stepsmith.runner.rules import fixture_rules

REPO = Path(__file__).resolve().parents[2]
NEW = [r for r in fixture_rules.RULES if r.code != "SF001"]


def check(capsys, *argv):
    code = main(["check", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return kit.write_workflow(tmp_path / "wf",
                              fixtures={"add/simple": kit.add_case("1.00", None, "1.50")})


def test_a_clean_workflow_with_fixtures_passes(wf, capsys):
    code, out, _ = check(capsys, "wf")
    assert code == 0 and "All checks passed!" in out


def test_invalid_json_has_its_position(wf, capsys):
    (wf / "fixtures" / "add" / "bad.json").write_text('{"inputs": {"a": "1.00"},\n  }\n')
    code, out, _ = check(capsys, "wf")
    assert code == 1
    assert re.search(r"^wf/fixtures/add/bad\.json:2:3: SF002 ", out, re.M), out


def test_fixture_for_an_unknown_step(wf, capsys, kit):
    kit.write_fixture(wf, "ad/one", kit.add_case("1.00", None, "1.50"))
    code, out, _ = check(capsys, "wf")
    assert code == 1
    line = next(ln for ln in out.splitlines() if "SF004" in ln)
    assert line.startswith("wf/fixtures/ad/one.json:1:1: SF004 ")
    assert "'ad'" in line and "did you mean 'add'" in line


def test_unknown_and_missing_input_keys(wf, capsys, kit):
    doc = kit.add_case("1.00", None, "1.50")
    doc["inputs"] = {"amount": "1.00", "b": "2"}
    kit.write_fixture(wf, "add/typo", doc)
    code, out, _ = check(capsys, "wf", "--format", "json")
    assert code == 1
    found = {p["code"]: p for p in json.loads(out)["problems"]}
    assert found["SF005"]["path"] == "wf/fixtures/add/typo.json"
    assert "'amount'" in found["SF005"]["message"]
    text = (wf / "fixtures" / "add" / "typo.json").read_text()
    line = text.splitlines()[found["SF005"]["line"] - 1]
    col = found["SF005"]["column"]
    assert line[col:].startswith('"amount"')
    assert "'a'" in found["SF006"]["message"]  # from sources.numbers: a fixture must give it


def test_format_error_and_misplaced_file_and_case_source(wf, capsys, kit):
    doc = kit.add_case("1.00", None, "1.50")
    doc["expect"] = doc.pop("expected")
    kit.write_fixture(wf, "add/format", doc)
    (wf / "fixtures" / "loose.json").write_text("{}")
    kit.write_fixture(wf, "_workflow/day1", {"sources": {"numbrs": "1"}, "evaluation_time": None})
    code, out, _ = check(capsys, "wf")
    assert code == 1
    assert re.search(r"^wf/fixtures/add/format\.json:\d+:\d+: SF003 unknown key 'expect'", out,
                     re.M), out
    assert re.search(r"^wf/fixtures/loose\.json:1:1: SF007 ", out, re.M), out
    assert re.search(r"^wf/fixtures/_workflow/day1\.json:\d+:\d+: SF008 .*'numbrs'.*did you "
                     r"mean 'numbers'", out, re.M), out


def test_fixture_findings_carry_their_did_you_mean_fix(wf, capsys, kit):
    """Issue 21: fixture findings are Problems like the others: `check --format json` prints
    their fix (the key renamed to the close known name) and applying it checks clean; no fix
    when that name is there already (it would make a duplicate key)."""
    from stepsmith.runner.fixes import apply_edits, fix_of
    from stepsmith.runner.problems import Problem, Span

    doc = kit.add_case("1.00", None, "1.50")
    doc["expectd"] = doc.pop("expected")
    kit.write_fixture(wf, "add/typo", doc)
    kit.write_fixture(wf, "add/both", kit.add_case("1.00", None, "1.50", expectd={}))
    kit.write_fixture(wf, "_workflow/day1", {"sources": {"numbrs": "1"}, "evaluation_time": None})
    code, out, _ = check(capsys, "wf", "--format", "json")
    assert code == 1
    found = json.loads(out)["problems"]
    for name, code_, new in (("typo", "SF003", "expected"), ("day1", "SF008", "numbers")):
        [p] = [p for p in found if p["path"].endswith(f"/{name}.json") and "mean" in p["message"]]
        assert p["code"] == code_ and p["url"].endswith(f"{code_}.md")
        fix = fix_of(Problem(p["code"], p["message"], Span(1, 0, 1, 1), data=p["data"]))
        assert fix is not None and fix.title == f"Change to '{new}'"
        path = Path(p["path"])
        path.write_text(apply_edits(path.read_text(), fix.edits))
    [both] = [p for p in found if p["path"].endswith("/both.json") and "mean" in p["message"]]
    assert "did you mean 'expected'" in both["message"] and "fix" not in both["data"]
    (wf / "fixtures" / "add" / "both.json").unlink()
    code, out, _ = check(capsys, "wf")
    assert code == 0, out


@pytest.mark.parametrize("rule", NEW, ids=[r.code for r in NEW])
def test_catalogue_examples_are_refused_and_fixes_accepted(rule, tmp_path, kit, monkeypatch,
                                                           capsys):
    assert re.fullmatch(r"SF\d\d\d", rule.code) and rule.example and rule.fix
    for text in (rule.summary, rule.rationale):
        assert text and "\n" not in text and len(text) < 160
    assert rules.get(rule.code) is rule
    monkeypatch.chdir(tmp_path)
    for name, snippet, want in (("bad", rule.example, 1), ("good", rule.fix, 0)):
        wf = kit.write_workflow(tmp_path / name)
        where, _, body = snippet.partition("\n")
        target = wf / where
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body)
        code, out, _ = check(capsys, name, "--format", "json")
        codes = [p["code"] for p in json.loads(out)["problems"]]
        if want:
            assert rule.code in codes, (snippet, codes)
        else:
            assert code == 0 and codes == [], (snippet, codes)


def test_the_pre_commit_hook_runs_on_fixture_only_commits():
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    files = re.compile(hook["files"])
    for path in ("wf/fixtures/add/simple.json", "fixtures/_workflow/day1.json",
                 "wf/workflow.yaml", "wf/a.workflow.yaml", "wf/steps/x.py"):
        assert files.search(path), path
    assert not files.search("package.json")


@pytest.mark.parametrize("manifest", ["workflow: demo\nsteps: [\n  - id: add\n",
                                      "workflow: demo\nsteps: 3\n"])
def test_a_manifest_whose_steps_cannot_be_read_reports_its_own_problem_only(wf, capsys,
                                                                           manifest):
    """Not "SF004 fixture for unknown step 'add' (steps: none)" on every fixture: a false
    error caused by the real one. A broken fixture is still its own finding."""
    (wf / "workflow.yaml").write_text(manifest)
    (wf / "fixtures" / "add" / "bad.json").write_text('{"inputs": ')
    code, out, _ = check(capsys, "--no-cache", "wf", "--format", "json")
    found = json.loads(out)["problems"]
    assert code == 1 and found
    assert "SF004" not in {p["code"] for p in found}
    assert {p["path"] for p in found} == {"wf/workflow.yaml", "wf/fixtures/add/bad.json"}
