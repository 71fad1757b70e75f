"""`record` needs no `--inputs` when every input
is a literal of the manifest (and says which are missing otherwise); `stepsmith run FIXTURE`
runs the fixture's step with its inputs, time and seed. Real CLI, real sandbox."""

import json

import pytest
from wfkit import cli

pytestmark = pytest.mark.usefixtures("sandbox")
AT = "2026-12-01T07:00:00+00:00"


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


def _egress(tmp_path, kit):
    m = kit.demo_manifest()
    m["steps"].append({"id": "fetch", "explanation": "Fetch a page.",
                       "code": "steps/fetch.py:fetch", "inputs": {"url": "https://example.org/"},
                       "network": "public_egress"})
    return kit.write_workflow(tmp_path / "wf", m,
                              {"steps/calc.py": kit.ADD_CODE, "steps/fetch.py": kit.FETCH_CODE})


def test_record_a_public_egress_fixture_offline_from_a_response_file(tmp_path, kit, monkeypatch,
                                                                     capsys):
    monkeypatch.chdir(tmp_path)
    wf = _egress(tmp_path, kit)
    (tmp_path / "resp.json").write_text('{"body": "<html>rates</html>"}')
    code, out, err = cli(capsys, "record", "wf", "--step", "fetch", "--response", "resp.json",
                         "--at", AT, "--name", "offline")
    assert code == 0, out + err
    doc = json.loads((wf / "fixtures" / "fetch" / "offline.json").read_text())
    assert doc["expected"] == {"output": {"body": "<html>rates</html>"}, "effects": []}
    assert "not run" in out
    code, out, _ = cli(capsys, "test", "wf")
    assert code == 0 and "1 recorded" in out
    # only for public_egress steps; never with --live; never a forbidden field name
    (tmp_path / "in.json").write_text('{"a": "1.00"}')
    code, _, err = cli(capsys, "record", "wf", "--step", "add", "--inputs", "in.json",
                       "--response", "resp.json", "--at", AT, "--name", "n")
    assert code == 2 and "public_egress" in err
    (tmp_path / "secret.json").write_text('{"token": "x"}')
    code, _, err = cli(capsys, "record", "wf", "--step", "fetch", "--response", "secret.json",
                       "--at", AT, "--name", "s")
    assert code == 1 and "token" in err
    assert not (wf / "fixtures" / "fetch" / "s.json").exists()
