"""The python pin is part of what a result is tied to, a pin with no
interpreter here is reported as such by every command (before anything runs or is
reused), `--format json` always prints one JSON document, duplicate
effect keys fail the same way everywhere, and the small ones (SS502, SM201 did-you-mean,
repeated --step, the throughput line). Real sandbox, real SQLite."""

import json
import platform
import re

import pytest
import yaml
from wfkit import cli

pytestmark = pytest.mark.usefixtures("sandbox")
AT = "2026-12-01T07:00:00+00:00"
OTHER = "3.99"  # a version no machine has: its pin is a stop, whatever is installed
STOP = f"Python {OTHER} (the workflow's `python:`) is not installed here"




def repin(wf, python):
    path = wf / "workflow.yaml"
    m = yaml.safe_load(path.read_text())
    m["python"] = python
    path.write_text(yaml.safe_dump(m, sort_keys=False))


@pytest.fixture
def run_wf(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return kit.run_workflow_dir(tmp_path / "wf")


def test_pin_change_stops_run_workflow_before_any_reuse(run_wf, capsys):
    code, out, _ = cli(capsys, "run-workflow", run_wf, "--case", "day1")
    assert code == 0 and "complete" in out
    repin(run_wf, OTHER)
    code, out, err = cli(capsys, "run-workflow", run_wf, "--case", "day1")
    assert code == 2, (out, err)
    assert "reused" not in out and "complete" not in out
    assert STOP in err and f"the running interpreter (Python {platform.python_version()})" in err
    assert "sandbox is unavailable" not in err
    assert f"uv python install {OTHER}" in err  # the fix, spelled out
    # the mirror case: a fresh run id under the wrong pin, and a resume under another id
    code, out, err = cli(capsys, "run-workflow", run_wf, "--case", "day1", "--run-id", "r2")
    assert code == 2 and "accepted" not in out and STOP in err


def test_pin_mismatch_is_the_reason_in_run_and_replay(run_wf, tmp_path, capsys):
    assert cli(capsys, "run-workflow", run_wf, "--case", "day1")[0] == 0
    repin(run_wf, OTHER)
    (tmp_path / "in.json").write_text(json.dumps({"a": "1.00"}))
    code, out, err = cli(capsys, "run", run_wf, "--step", "add", "--inputs", tmp_path / "in.json")
    assert code == 2 and STOP in err and "unavailable" not in err
    code, out, err = cli(capsys, "replay", "day1", run_wf)
    assert code == 2 and STOP in err and "unavailable" not in err
    assert "same" not in out


@pytest.mark.parametrize("argv", [
    ["run", "{wf}", "--step", "add", "--inputs", "{inp}"],
    ["run-workflow", "{wf}", "--case", "day1"],
    ["replay", "day1", "{wf}"],
    ["test", "{wf}"],
])
def test_json_mode_prints_one_document_on_a_pin_mismatch(run_wf, tmp_path, capsys, argv, kit):
    (tmp_path / "in.json").write_text(json.dumps({"a": "1.00"}))
    kit.write_fixture(run_wf, "add/simple", kit.add_case("1.00", None, "1.50"))
    assert cli(capsys, "run-workflow", run_wf, "--case", "day1")[0] == 0
    repin(run_wf, OTHER)
    args = [a.format(wf=run_wf, inp=tmp_path / "in.json") for a in argv] + ["--format", "json"]
    code, out, err = cli(capsys, *args)
    assert code != 0
    doc = json.loads(out)  # exactly one document, nothing else on stdout
    assert STOP in json.dumps(doc, ensure_ascii=False)


@pytest.mark.parametrize("argv", [
    ["run", "{wf}", "--step", "nope", "--inputs", "{inp}"],
    ["run", "{wf}", "--inputs", "{inp}"],  # argparse: --step is required
    ["run-workflow", "{wf}", "--case", "nosuch"],
    ["replay", "nosuch", "{wf}"],
    ["test", "{wf}", "--step", "nope"],
    ["check", "{wf}/missing"],
    ["reach", "{wf}/missing"],
    ["test", "{wf}", "-k", "add and"],
])
def test_json_mode_prints_one_error_document_for_every_usage_error(run_wf, tmp_path, capsys,
                                                                   argv):
    (tmp_path / "in.json").write_text(json.dumps({"a": "1.00"}))
    args = [a.format(wf=run_wf, inp=tmp_path / "in.json") for a in argv] + ["--format", "json"]
    code, out, err = cli(capsys, *args)
    assert code == 2, (out, err)
    doc = json.loads(out)
    assert doc["ok"] is False and doc["exit_code"] == 2 and doc["error"]
    assert doc["command"] == argv[0]


DUP_CODE = '''\
def bill(items, effects):
    for it in items:
        effects.emit("draft_bill", {"invoice_id": "INV-1", "amount": it["amount"]})
    return {"count": len(items)}
'''


def dup_workflow(kit, root):
    files = dict(kit.FULL_FILES, **{"steps/bill.py": DUP_CODE})
    return kit.run_workflow_dir(root, files=files)


def test_duplicate_effect_keys_fail_a_fixture(kit, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = dup_workflow(kit, tmp_path / "wf")
    intents = [{"effect": "draft_bill", "key": "INV-1",
                "payload": {"invoice_id": "INV-1", "amount": a}} for a in ("10.00", "2.50")]
    kit.write_fixture(wf, "bill/two", {"inputs": {"items": kit.BILL_ITEMS}, "evaluation_time": AT,
                                       "expected": {"output": {"count": 2}, "effects": intents}})
    code, out, _ = cli(capsys, "test", wf, "--step", "bill")
    assert code == 1 and "FAILED" in out and "duplicate effect key" in out and "INV-1" in out


def test_record_refuses_duplicate_effect_keys(kit, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = dup_workflow(kit, tmp_path / "wf")
    (tmp_path / "in.json").write_text(json.dumps({"items": kit.BILL_ITEMS}))
    code, out, err = cli(capsys, "record", wf, "--step", "bill", "--inputs", tmp_path / "in.json",
                         "--at", AT, "--name", "dup")
    assert code == 1 and "duplicate effect key" in err and "INV-1" in err
    assert not (wf / "fixtures" / "bill" / "dup.json").exists()


def test_run_workflow_reports_duplicate_keys_as_the_steps_failure(kit, tmp_path, capsys,
                                                                  monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = dup_workflow(kit, tmp_path / "wf")
    code, out, err = cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code == 1, (out, err)
    assert re.search(r"✗ failed +bill", out) and "duplicate effect key" in out
    assert "stopped" in out and "1 failed" in out  # the summary line is there
    code, out, err = cli(capsys, "run-workflow", wf, "--case", "day1", "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False
    assert [s["outcome"] for s in doc["steps"] if s["step"] == "bill"] == ["failed"]


def test_repeated_step_options_accumulate(kit, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = kit.full_workflow(tmp_path / "wf")
    code, out, _ = cli(capsys, "test", wf, "--step", "add", "--step", "double", "--format",
                       "json")
    doc = json.loads(out)
    assert code == 0
    assert sorted(r["id"] for r in doc["results"]) == ["wf::add::both", "wf::add::simple",
                                                      "wf::double::from-add"]


def test_throughput_counts_only_fixtures_that_ran(kit, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = kit.full_workflow(tmp_path / "wf")
    repin(wf, OTHER)
    code, out, _ = cli(capsys, "test", wf)
    assert code == 1 and "fixtures/s" not in out and STOP in out
    code, out, _ = cli(capsys, "test", wf, "--format", "json")
    assert json.loads(out)["summary"]["executed"] == 0


def test_ss502_message_names_real_spellings():
    from stepsmith.runner.rules.step_rules import BY_CODE
    from stepsmith.runner.validator import validate

    for attr, right in (("now", "datetime.datetime.now()"), ("today", "datetime.date.today()")):
        cls = "datetime" if attr == "now" else "date"
        src = (f"import datetime\n\n\ndef step(d):\n"
               f"    return datetime.{cls}.fromisoformat(d).{attr}()\n")
        problems = [p for p in validate(src) if p.code == "SS502"]
        assert problems, src
        msg = problems[0].message
        assert "datetime.date.now" not in msg + BY_CODE["SS502"].summary
        assert "spelled out" not in msg
        assert right in msg and f"from datetime import {cls}" in msg


def test_sm201_suggests_a_near_file_name(kit, tmp_path, capsys):
    m = kit.demo_manifest()
    m["steps"][0]["code"] = "steps/clac.py:add"
    wf = kit.write_workflow(tmp_path / "wf", m)
    code, out, _ = cli(capsys, "check", wf)
    assert code == 1 and "SM201" in out and "did you mean 'steps/calc.py'?" in out
