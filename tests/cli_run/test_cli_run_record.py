"""`stepsmith run` and `stepsmith record`: real sandbox, tmp_path workflows."""

import io
import json

import pytest
from stepsmith.runner.cli import main

pytestmark = pytest.mark.usefixtures("sandbox")
AT = "2026-12-01T07:00:00+00:00"
CANARY = "canary-s3cr3t-7f1d2e"


def cli(capsys, *argv):
    try:
        code = main([*map(str, argv)])
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def inputs_file(tmp_path, doc, name="in.json"):
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return p


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return kit.full_workflow(tmp_path / "wf", fixtures={})


def test_run_prints_the_typed_result(wf, tmp_path, capsys):
    code, out, _ = cli(capsys, "run", wf, "--step", "add", "--inputs",
                       inputs_file(tmp_path, {"a": "2.00"}))
    assert code == 0
    assert "step add: ok" in out and '"sum": "2.50"' in out
    code, out, _ = cli(capsys, "run", wf / "workflow.yaml", "--step", "add", "--inputs",
                       inputs_file(tmp_path, {"a": "2.00", "b": "1"}), "--format", "json")
    res = json.loads(out)
    assert code == 0 and res["status"] == "ok" and res["output"] == {"sum": "3.00"}


def test_run_reads_stdin_and_pins_time(wf, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("{}"))
    code, out, _ = cli(capsys, "run", wf, "--step", "clock", "--inputs", "-", "--at", AT,
                       "--format", "json")
    assert code == 0 and json.loads(out)["output"] == {"label": "now", "now": "2026-12-01T07:00:00"}
    monkeypatch.setattr("sys.stdin", io.StringIO("{}"))
    code, out, _ = cli(capsys, "run", wf, "--step", "clock", "--inputs", "-")
    assert code == 1 and "step clock: error" in out  # no pinned time: now() is an error


def test_run_shows_errors_with_the_authors_traceback(wf, tmp_path, capsys):
    code, out, _ = cli(capsys, "run", wf, "--step", "boom", "--inputs",
                       inputs_file(tmp_path, {"a": "x"}))
    assert code == 1
    assert "ValueError: bad amount x" in out and "steps/calc.py:" in out


def test_run_effects_are_intents(wf, tmp_path, capsys, kit):
    code, out, _ = cli(capsys, "run", wf, "--step", "bill", "--inputs",
                       inputs_file(tmp_path, {"items": kit.BILL_ITEMS}), "--format", "json")
    assert code == 0 and json.loads(out)["effects"] == kit.BILL_INTENTS


def test_run_usage_errors(wf, tmp_path, capsys):
    good = inputs_file(tmp_path, {"a": "1"})
    assert cli(capsys, "run", wf, "--step", "nope", "--inputs", good)[0] == 2
    assert cli(capsys, "run", wf, "--step", "add", "--inputs", good, "--at", "noon")[0] == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": }')
    code, _, err = cli(capsys, "run", wf, "--step", "add", "--inputs", bad)
    assert code == 2 and "bad.json:1:7: invalid JSON" in err
    code, _, err = cli(capsys, "run", wf, "--step", "add", "--inputs",
                       inputs_file(tmp_path, {"a": "1", "zz": 1}))
    assert code == 2 and "has no parameter 'zz'" in err
    code, _, err = cli(capsys, "run", wf, "--step", "add", "--inputs",
                       inputs_file(tmp_path, {"b": "1"}))
    assert code == 2 and "no value for a (from sources.numbers)" in err
    code, _, err = cli(capsys, "run", wf, "--step", "add", "--inputs",
                       inputs_file(tmp_path, {"a": {"Token": "x"}}))
    assert code == 1 and "forbidden field names at a.Token" in err


def test_record_then_test_passes(wf, tmp_path, capsys):
    code, out, _ = cli(capsys, "record", wf, "--step", "add", "--inputs",
                       inputs_file(tmp_path, {"a": "4.00"}), "--at", AT, "--seed", "3",
                       "--name", "four")
    assert code == 0, out
    path = wf / "fixtures" / "add" / "four.json"
    assert json.loads(path.read_text()) == {
        "inputs": {"a": "4.00"}, "evaluation_time": AT, "seed": 3,
        "expected": {"output": {"sum": "4.50"}, "effects": []}}
    code, _, err = cli(capsys, "record", wf, "--step", "add", "--inputs",
                       inputs_file(tmp_path, {"a": "5.00"}), "--at", AT, "--name", "four")
    assert code == 2 and "exists; --force overwrites it" in err  # usage: nothing ran
    assert json.loads(path.read_text())["inputs"] == {"a": "4.00"}  # untouched
    code, _, _ = cli(capsys, "record", wf, "--step", "boom", "--inputs",
                     inputs_file(tmp_path, {"a": "q"}), "--at", AT, "--name", "q")
    assert code == 0
    assert json.loads((wf / "fixtures/boom/q.json").read_text())["expected"] == {
        "error": {"type": "ValueError", "message": "bad amount q"}}
    code, out, _ = cli(capsys, "test", wf)
    assert code == 0 and "2 passed" in out
    code, _, _ = cli(capsys, "record", wf, "--step", "add", "--inputs",
                     inputs_file(tmp_path, {"a": "5.00"}), "--at", AT, "--name", "four",
                     "--force")
    assert code == 0 and json.loads(path.read_text())["inputs"] == {"a": "5.00"}


def test_record_refusals(wf, tmp_path, capsys):
    good = inputs_file(tmp_path, {"a": "1"})
    for name in ("Four", "../x", "a b", "", "-x", "x" * 101):
        code, _, err = cli(capsys, "record", wf, "--step", "add", "--inputs", good, "--at", AT,
                           f"--name={name}")
        assert code == 2 and "is not a case name" in err
    code, _, err = cli(capsys, "record", wf, "--step", "add", "--inputs",
                       inputs_file(tmp_path, {"a": [{"credentials": 1}]}), "--at", AT,
                       "--name", "x")
    assert code == 1 and "forbidden field names at a[0].credentials" in err
    code, _, err = cli(capsys, "record", wf, "--step", "add", "--inputs", good, "--name", "x")
    assert code == 2  # --at is required
    code, _, err = cli(capsys, "record", wf, "--step", "fetch", "--inputs",
                       inputs_file(tmp_path, {}), "--at", AT, "--name", "x")
    assert code == 2 and "needs --live" in err
    assert not (wf / "fixtures" / "add" / "x.json").exists()


def test_record_never_writes_a_credential(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    m = kit.demo_manifest()
    m["connections"]["vault"] = {"description": "a secret store"}
    m["steps"].append({"id": "leak", "explanation": "Echo the credential (hostile).",
                       "code": "steps/leak.py:leak", "inputs": {"x": "1"},
                       "connections": ["vault"]})
    wf = kit.write_workflow(tmp_path / "wf", m,
                            {"steps/calc.py": kit.ADD_CODE, "steps/leak.py": kit.SECRET_CODE})
    monkeypatch.setenv("STEPSMITH_CONNECTION_VAULT", CANARY)
    # the step returns the credential: the sandbox redacts it before anything sees it
    code, out, _ = cli(capsys, "record", wf, "--step", "leak", "--inputs",
                       inputs_file(tmp_path, {"x": "1"}), "--at", AT, "--name", "echo")
    assert code == 0
    text = (wf / "fixtures/leak/echo.json").read_text()
    assert CANARY not in text and "[redacted:vault]" in text
    assert CANARY not in out
    # the author pastes the credential into an input: refused, nothing written
    code, out, err = cli(capsys, "record", wf, "--step", "leak", "--inputs",
                         inputs_file(tmp_path, {"x": "key=" + CANARY}), "--at", AT,
                         "--name", "pasted")
    assert code == 1 and "would contain the credential of connection(s) vault" in err
    assert not (wf / "fixtures/leak/pasted.json").exists()
    assert CANARY not in out + err
