"""`stepsmith test`: real sandbox, real manifest check, tmp_path workflows."""

import json
import xml.etree.ElementTree as ET

import pytest
from stepsmith.runner.cli import main

pytestmark = pytest.mark.usefixtures("sandbox")


def run(capsys, *argv):
    code = main(["test", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_all_pass_exit_0_with_summary(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kit.full_workflow(tmp_path / "wf")
    code, out, err = run(capsys, "wf", "-j", "2")
    assert code == 0, out + err
    assert "6 passed, 1 recorded (served from recording, not executed), 0 failed, 0 errors" in out
    assert "fixtures/s" in out
    assert "stepsmith test" in out and "│ wf " in out  # the summary table


def test_failure_exit_1_with_readable_diff(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fx = kit.passing_fixtures()
    fx["add/simple"]["expected"]["output"]["sum"] = "1.5"
    kit.full_workflow(tmp_path / "wf", fx)
    code, out, _ = run(capsys, "wf")
    assert code == 1
    assert "FAILED wf::add::simple  wf/fixtures/add/simple.json" in out
    assert 'output.sum: expected "1.5", got "1.50"' in out
    assert "5 passed, 1 recorded (served from recording, not executed), 1 failed, 0 errors" in out


def test_json_format(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fx = kit.passing_fixtures()
    fx["add/simple"]["expected"]["output"]["sum"] = "9"
    kit.full_workflow(tmp_path / "wf", fx)
    code, out, err = run(capsys, "wf", "--format", "json")
    assert code == 1 and err == ""  # no progress bar in json mode
    doc = json.loads(out)
    assert doc["summary"]["passed"] == 5 and doc["summary"]["failed"] == 1
    assert doc["summary"]["recorded"] == 1 and doc["summary"]["total"] == 7
    simple = next(r for r in doc["results"] if r["id"] == "wf::add::simple")
    assert simple["differences"] == [{"path": "output.sum", "kind": "changed", "expected": "9",
                                      "actual": "1.50", "message": 'expected "9", got "1.50"'}]
    assert simple["result"]["status"] == "ok"
    assert doc["workflows"] == [{"path": "wf", "ok": True, "problems": []}]


def test_junit_xml_is_valid(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fx = kit.passing_fixtures()
    fx["add/simple"]["expected"]["output"]["sum"] = "9"
    fx["add/broken"] = '{"inputs": '
    kit.full_workflow(tmp_path / "wf", fx)
    code, _, _ = run(capsys, "wf", "--junit-xml", tmp_path / "junit.xml")
    assert code == 1
    root = ET.parse(tmp_path / "junit.xml").getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"),
            suite.get("skipped")) == ("8", "1", "1", "1")
    cases = {(c.get("classname"), c.get("name")): c for c in suite.findall("testcase")}
    assert len(cases) == 8
    fail = cases[("wf::add", "simple")].find("failure")
    assert fail.get("message") == 'output.sum: expected "9", got "1.50"'
    assert "invalid JSON" in cases[("wf::add", "broken")].find("error").text
    assert cases[("wf::fetch", "recorded")].find("skipped") is not None
    assert cases[("wf::double", "from-add")].find("failure") is None


def test_junit_xml_is_jenkins_junit_10_with_counts_that_add_up(tmp_path, kit, capsys,
                                                                monkeypatch):
    """Valid against Jenkins' junit-10.xsd (what Jenkins and GitLab read): no `file` on a
    test case (pytest's default xunit2 family has none), the root's counts equal its
    suite's, and they are the numbers `--format json` gives."""
    from pathlib import Path

    import xmlschema

    monkeypatch.chdir(tmp_path)
    fx = kit.passing_fixtures()
    fx["add/simple"]["expected"]["output"]["sum"] = "9"
    fx["add/broken"] = '{"inputs": '
    kit.full_workflow(tmp_path / "wf", fx)
    code, out, _ = run(capsys, "wf", "--junit-xml", tmp_path / "junit.xml", "--format", "json")
    assert code == 1
    summary = json.loads(out)["summary"]
    xml = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    xmlschema.XMLSchema(Path(__file__).parents[1] / "reference" / "data" / "junit-10.xsd"
                        ).validate(xml)
    root = ET.fromstring(xml.encode())
    (suite,) = root.findall("testsuite")
    assert all(c.get("file") is None and c.get("line") is None
               for c in suite.findall("testcase"))
    for el in (root, suite):
        assert (int(el.get("tests")), int(el.get("failures")), int(el.get("errors"))) == (
            summary["total"], summary["failed"], summary["error"]) == (8, 1, 1)
    assert int(suite.get("skipped")) == summary["recorded"] == 1


def test_select_step_and_keyword(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kit.full_workflow(tmp_path / "wf")
    code, out, _ = run(capsys, "wf", "--step", "add", "--format", "json")
    assert code == 0 and [r["id"] for r in json.loads(out)["results"]] == [
        "wf::add::both", "wf::add::simple"]
    code, out, _ = run(capsys, "wf", "-k", "from-add", "--format", "json")
    assert [r["id"] for r in json.loads(out)["results"]] == ["wf::double::from-add"]
    code, _, err = run(capsys, "wf", "-k", "no-such-case")
    assert code == 2 and "no fixtures matched" in err


def test_check_problems_are_errors_exit_1(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    m = kit.demo_manifest()
    m["steps"][0]["explanation"] = ""
    kit.write_workflow(tmp_path / "wf", m, fixtures={"add/ok": kit.add_case("1", None, "1.5")})
    code, out, _ = run(capsys, "wf")
    assert code == 1
    assert "ERROR  wf: the workflow has check problems, so its 1 fixture(s) cannot run:" in out
    assert "wf/workflow.yaml:" in out


def test_usage_errors_exit_2(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "does-not-exist")
    assert code == 2 and "no such file" in err
    (tmp_path / "empty").mkdir()
    code, _, err = run(capsys, "empty")
    assert code == 2 and "no workflow manifests" in err
    code, _, err = run(capsys, "empty", "-j", "0")
    assert code == 2


def test_sandbox_unavailable_exit_2_never_runs_unsandboxed(tmp_path, kit, capsys, monkeypatch):
    from stepsmith.runner import sandbox

    monkeypatch.chdir(tmp_path)
    kit.full_workflow(tmp_path / "wf")
    calls = []
    monkeypatch.setattr(sandbox, "sandbox_available",
                        lambda: (False, "bwrap not found: apt-get install bubblewrap"))
    monkeypatch.setattr(sandbox, "run_step", lambda *a, **k: calls.append(a))
    code, _, err = run(capsys, "wf")
    assert code == 2 and calls == []
    assert "apt-get install bubblewrap" in err and "Refusing to run" in err


def test_no_fixtures_is_fine(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kit.write_workflow(tmp_path / "wf")
    code, out, _ = run(capsys, "wf")
    assert code == 0 and "no fixtures found" in out


def test_internal_error_exit_2_one_line(tmp_path, kit, capsys, monkeypatch):
    from stepsmith.runner.app import suite

    monkeypatch.chdir(tmp_path)
    kit.full_workflow(tmp_path / "wf")

    def broken(*a, **k):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(suite, "load_one", broken)  # loads each workflow PATH reaches
    code, _, err = run(capsys, "wf")
    assert code == 2 and err == "stepsmith test: internal error: RuntimeError: simulated bug\n"


def test_json_carries_unified_diffs_for_big_values(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    items = [{"id": f"INV-{i}", "amount": "1.00"} for i in range(10)]
    intents = [{"effect": "draft_bill", "key": i["id"],
                "payload": {"invoice_id": i["id"], "amount": "1.00"}} for i in items]
    intents[3]["payload"]["amount"] = "1"
    kit.full_workflow(tmp_path / "wf", {"bill/ten": {
        "inputs": {"items": items}, "expected": {"output": {"count": 10}, "effects": intents}}})
    code, out, _ = run(capsys, "wf", "--format", "json")
    (r,) = json.loads(out)["results"]
    assert code == 1 and len(r["unified_diffs"]) == 1
    assert '-      "amount": "1"\n+      "amount": "1.00"\n' in r["unified_diffs"][0]


def _invoice(tmp_path):
    import shutil
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / "examples" / "invoice-matching"
    wf = tmp_path / "invoice-matching"
    shutil.copytree(src, wf, ignore=shutil.ignore_patterns(".stepsmith"))
    return wf


def test_one_cause_one_report_and_clean_steps_still_run(tmp_path, capsys, monkeypatch):
    """One disallowed import in steps/match.py made all 12 fixtures errors, those of steps
    whose code is untouched included. The steps whose code and manifest entry are clean run;
    the fixtures the problem blocks are reported once, as blocked by it (code and position),
    as pytest reports one collection error."""
    monkeypatch.chdir(tmp_path)
    wf = _invoice(tmp_path)
    step = wf / "steps" / "match.py"
    step.write_text("import os\n" + step.read_text())
    code, out, _ = run(capsys, "invoice-matching", "--format", "json", "--junit-xml", "j.xml")
    doc = json.loads(out)
    assert code == 1
    errors = [r for r in doc["results"] if r["outcome"] == "error"]
    assert len(errors) == 1 and doc["summary"]["error"] == 1
    (blocked,) = errors
    text = "\n".join(blocked["messages"])
    assert "invoice-matching/steps/match.py:1:8: SS101" in text
    assert blocked["blocks"] == ["invoice-matching::match::acme-2026-12-01",
                                 "invoice-matching::match::fx-and-supplier-2026-12-02",
                                 "invoice-matching::match::tight-tolerance"]
    ran = {r["step"] for r in doc["results"] if r["outcome"] in ("passed", "recorded")}
    assert ran == {"normalise", "fx_rates", "draft_bills", "summary"}
    assert doc["summary"]["total"] == 10 and doc["summary"]["passed"] + doc["summary"][
        "recorded"] == 9
    root = ET.parse(tmp_path / "j.xml").getroot()
    assert len(root.findall(".//error")) == 1
    code, out, _ = run(capsys, "invoice-matching")
    assert out.count("SS101") == 1 and "1 errors" in out


def test_a_manifest_that_does_not_validate_blocks_the_workflow_once(tmp_path, capsys,
                                                                    monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = _invoice(tmp_path)
    manifest = wf / "workflow.yaml"
    manifest.write_text(manifest.read_text().replace("version: 3", "version: three"))
    code, out, _ = run(capsys, "invoice-matching", "--format", "json")
    doc = json.loads(out)
    assert code == 1 and [r["outcome"] for r in doc["results"]] == ["error"]
    (blocked,) = doc["results"]
    assert "SM005" in "\n".join(blocked["messages"]) and len(blocked["blocks"]) == 12
    code, out, _ = run(capsys, "invoice-matching", "-k", "tight", "--format", "json")
    assert code == 1 and len(json.loads(out)["results"]) == 1  # selected through what it blocks
    code, _out, err = run(capsys, "invoice-matching", "-k", "no-such-fixture")
    assert code == 2 and "no fixtures matched" in err


def test_the_report_of_a_cause_is_one_junit_case_of_its_workflow(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = _invoice(tmp_path)
    step = wf / "steps" / "match.py"
    step.write_text("import os\n" + step.read_text())
    run(capsys, "invoice-matching", "--junit-xml", "j.xml")
    (case,) = [c for c in ET.parse(tmp_path / "j.xml").getroot().iter("testcase")
               if c.find("error") is not None]
    assert case.get("classname") == "invoice-matching"
    assert case.get("name") == "(blocked by SS101 at invoice-matching/steps/match.py:1:8)"
    assert "3 fixture(s) of match cannot run" in case.find("error").text
