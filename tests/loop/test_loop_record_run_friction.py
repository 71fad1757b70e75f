"""Issue 20, friction in recording and running: `record` needs no `--inputs` when every input
is a literal of the manifest (and says which are missing otherwise); `stepsmith run FIXTURE`
runs the fixture's step with its inputs, time and seed. Real CLI, real sandbox."""

import json

import pytest
from stepsmith.runner.cli import main

pytestmark = pytest.mark.usefixtures("sandbox")
AT = "2026-12-01T07:00:00+00:00"


def cli(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_record_without_inputs_when_every_input_is_a_literal(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli(capsys, "init", "flow")[0] == 0
    code, out, err = cli(capsys, "record", "flow", "--step", "total", "--at", AT, "--name", "lit")
    assert code == 0, out + err
    doc = json.loads((tmp_path / "flow" / "fixtures" / "total" / "lit.json").read_text())
    assert doc["inputs"] == {} and doc["expected"]["output"]["total"] == "12.50"


def test_record_without_inputs_names_what_is_missing(tmp_path, kit, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    kit.write_workflow(tmp_path / "wf")
    code, out, err = cli(capsys, "record", "wf", "--step", "add", "--at", AT, "--name", "x")
    assert code == 2 and "a (from sources.numbers)" in err and "--inputs" in err, err


def test_run_a_fixture_file(tmp_path, kit, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    fx = {"clock/pinned": {"inputs": {}, "evaluation_time": AT, "seed": 3,
                           "expected": {"output": {}}}}
    m = kit.demo_manifest()
    m["steps"].append({"id": "clock", "explanation": "Say what time it is.",
                       "code": "steps/calc.py:clock", "inputs": {"label": "now"}})
    wf = kit.write_workflow(tmp_path / "wf", m, fixtures=fx)
    code, out, err = cli(capsys, "run", wf / "fixtures" / "clock" / "pinned.json",
                         "--format", "json")
    assert code == 0, out + err
    assert json.loads(out)["output"] == {"label": "now", "now": "2026-12-01T07:00:00"}
    code, out, err = cli(capsys, "run", "wf/fixtures/clock/nope.json")
    assert code == 2 and "nope.json" in err
