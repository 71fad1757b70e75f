"""Host files never become credentials, and real credentials reach a step
only in an explicitly live run. Canary: a secret in the runner's environment, and a
`key=value` host file outside the workflow folder (mode 0600, like ~/.aws/credentials)."""

import json
import os
import warnings

import pytest
from stepsmith.runner.cli import main
from stepsmith.runner.safeio import UnsafePath
from stepsmith.runner.sandbox.connections import (
    CredentialFileWarning,
    live_connections,
    load_connections,
)

pytestmark = pytest.mark.usefixtures("sandbox")
AT = "2026-12-01T07:00:00+00:00"
CANARY = "canary-host-secret-5b2c91"
REVERSE = "def leak(x, connections):\n    return {'x': x, 'rev': connections['vault'][::-1]}\n"


def cli(capsys, *argv):
    try:
        code = main([*map(str, argv)])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def host_file(tmp_path):
    """A host credentials file outside any workflow folder."""
    d = tmp_path / "home" / ".aws"
    d.mkdir(parents=True)
    f = d / "credentials"
    f.write_text(f"[default]\nvault={CANARY}\nSTEPSMITH_CONNECTION_VAULT={CANARY}\n")
    f.chmod(0o600)
    return f


@pytest.fixture
def hostile(tmp_path, kit, monkeypatch, host_file):
    """A cloned folder: declares `vault`, a step returning it reversed (redaction cannot see
    that), and `.stepsmith/connections.env -> <host credentials file>`."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STEPSMITH_CONNECTION_VAULT", raising=False)
    m = kit.demo_manifest()
    m["connections"]["vault"] = {"description": "a secret store"}
    m["steps"].append({"id": "leak", "explanation": "Echo the credential reversed.",
                       "code": "steps/leak.py:leak", "inputs": {"x": "1"},
                       "connections": ["vault"]})
    wf = kit.write_workflow(tmp_path / "wf", m,
                            {"steps/calc.py": kit.ADD_CODE, "steps/leak.py": REVERSE})
    (wf / ".stepsmith").mkdir(exist_ok=True)
    os.symlink(host_file, wf / ".stepsmith" / "connections.env")
    return wf


def _inputs(tmp_path):
    p = tmp_path / "in.json"
    p.write_text(json.dumps({"x": "1"}))
    return p


def test_symlinked_connections_env_is_never_read(hostile, tmp_path):
    with pytest.raises(UnsafePath, match="symlink"):
        load_connections(hostile, ["vault"], environ={})
    with pytest.raises(UnsafePath):
        live_connections(hostile, ["vault"], "demo", environ={})


def test_symlinked_stepsmith_dir_is_never_read(tmp_path, host_file):
    wf = tmp_path / "wf2"
    wf.mkdir()
    os.symlink(host_file.parent, wf / ".stepsmith")
    (host_file.parent / "connections.env").write_text(f"vault={CANARY}\n")
    (host_file.parent / "connections.env").chmod(0o600)
    with pytest.raises(UnsafePath, match="symlink"):
        load_connections(wf, ["vault"], environ={})


def test_offline_run_and_record_get_a_placeholder_not_the_host_file(hostile, tmp_path, capsys,
                                                                    monkeypatch):
    monkeypatch.setenv("STEPSMITH_CONNECTION_VAULT", CANARY)  # even with it in the env
    code, out, err = cli(capsys, "run", hostile, "--step", "leak", "--inputs", _inputs(tmp_path),
                         "--format", "json")
    assert code == 0, err
    res = json.loads(out)
    assert res["output"]["rev"] == "stepsmith-placeholder:vault"[::-1]
    assert CANARY not in out and CANARY[::-1] not in out
    code, out, err = cli(capsys, "record", hostile, "--step", "leak", "--inputs",
                         _inputs(tmp_path), "--at", AT, "--name", "rev")
    assert code == 0, err
    text = (hostile / "fixtures" / "leak" / "rev.json").read_text()
    assert CANARY[::-1] not in text and CANARY not in text
    # and the fixture passes where the author's environment holds nothing (CI)
    monkeypatch.delenv("STEPSMITH_CONNECTION_VAULT")
    code, out, err = cli(capsys, "test", hostile, "-k", "rev")
    assert code == 0, out + err


def test_live_run_refuses_a_symlinked_credential_file(hostile, tmp_path, capsys):
    code, out, err = cli(capsys, "run", hostile, "--step", "leak", "--inputs", _inputs(tmp_path),
                         "--live")
    assert code == 2 and "symlink" in err, err
    assert CANARY not in out + err and CANARY[::-1] not in out + err


def test_live_missing_credential_names_alias_and_places(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STEPSMITH_CONNECTION_VAULT", raising=False)
    monkeypatch.delenv("STEPSMITH_CONNECTION_DEMO_VAULT", raising=False)
    m = kit.demo_manifest()
    m["connections"]["vault"] = {"description": "a secret store"}
    m["steps"].append({"id": "leak", "explanation": "Echo it.", "code": "steps/leak.py:leak",
                       "inputs": {"x": "1"}, "connections": ["vault"]})
    wf = kit.write_workflow(tmp_path / "wf", m,
                            {"steps/calc.py": kit.ADD_CODE, "steps/leak.py": REVERSE})
    code, out, err = cli(capsys, "run", wf, "--step", "leak", "--inputs", _inputs(tmp_path),
                         "--live")
    assert code == 2, (out, err)
    assert "'vault'" in err and "$STEPSMITH_CONNECTION_DEMO_VAULT" in err
    assert "$STEPSMITH_CONNECTION_VAULT" in err and "connections.env" in err
    assert "KeyError" not in err and "Traceback" not in err


def test_live_run_gets_the_workflow_scoped_credential_first(tmp_path, kit, capsys, monkeypatch):
    wf = _case_workflow(tmp_path, kit, monkeypatch)
    monkeypatch.setenv("STEPSMITH_CONNECTION_VAULT", "x" * 5)
    monkeypatch.setenv("STEPSMITH_CONNECTION_DEMO_VAULT", "y" * 9)
    code, out, err = cli(capsys, "run", wf, "--step", "leak", "--inputs", _inputs(tmp_path),
                         "--live", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["output"] == {"n": 9}


def test_credential_file_rules(tmp_path):
    (tmp_path / ".stepsmith").mkdir()
    f = tmp_path / ".stepsmith" / "connections.env"
    f.write_text("STEPSMITH_CONNECTION_DEMO_XERO=scoped\nxero=plain\n")
    f.chmod(0o644)
    with pytest.warns(CredentialFileWarning, match="chmod 600"):
        assert load_connections(tmp_path, ["xero"], environ={}, workflow="demo") == {
            "xero": "scoped"}
    f.chmod(0o600)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_connections(tmp_path, ["xero"], environ={}) == {"xero": "plain"}
    f.unlink()
    os.mkfifo(f)  # not a regular file: refused, and never blocks
    with pytest.raises(UnsafePath, match="regular"):
        load_connections(tmp_path, ["xero"], environ={})
    f.unlink()
    f.write_bytes(b"x=" + b"a" * (70 * 1024))
    with pytest.raises(UnsafePath, match="limit"):
        load_connections(tmp_path, ["xero"], environ={})


def _case_workflow(tmp_path, kit, monkeypatch):
    """A workflow whose `leak` step (granted `vault`) returns the credential's length, with a
    case `day1`; no public_egress step, so a live run needs no network."""
    monkeypatch.chdir(tmp_path)
    m = kit.demo_manifest()
    m["connections"]["vault"] = {"description": "a secret store"}
    m["steps"].append({"id": "leak", "explanation": "Echo it.", "code": "steps/leak.py:leak",
                       "inputs": {"x": "sources.numbers"}, "connections": ["vault"]})
    code_ = "def leak(x, connections):\n    return {'n': len(connections['vault'])}\n"
    case = {"sources": {"numbers": "1.25"}, "evaluation_time": AT}
    return kit.write_workflow(tmp_path / "wf", m,
                              {"steps/calc.py": kit.ADD_CODE, "steps/leak.py": code_},
                              {"_workflow/day1": case})


def test_live_record_of_a_case_hands_the_step_its_real_credential(tmp_path, kit, capsys,
                                                                  monkeypatch):
    wf = _case_workflow(tmp_path, kit, monkeypatch)
    monkeypatch.setenv("STEPSMITH_CONNECTION_VAULT", "x" * 5)
    monkeypatch.setenv("STEPSMITH_CONNECTION_DEMO_VAULT", "y" * 9)
    code, out, err = cli(capsys, "record", wf, "--case", "day1", "--live")
    assert code == 0, out + err
    doc = json.loads((wf / "fixtures" / "leak" / "day1.json").read_text())
    assert doc["expected"]["output"] == {"n": 9}  # the workflow-scoped credential, not a
    # placeholder (len("stepsmith-placeholder:vault") is 27)
    code, out, err = cli(capsys, "record", wf, "--case", "day1", "--name", "off")
    assert code == 0, out + err
    doc = json.loads((wf / "fixtures" / "leak" / "off.json").read_text())
    assert doc["expected"]["output"] == {"n": len("stepsmith-placeholder:vault")}


def test_live_record_of_a_case_names_a_missing_credential(tmp_path, kit, capsys, monkeypatch):
    wf = _case_workflow(tmp_path, kit, monkeypatch)
    monkeypatch.delenv("STEPSMITH_CONNECTION_VAULT", raising=False)
    monkeypatch.delenv("STEPSMITH_CONNECTION_DEMO_VAULT", raising=False)
    code, out, err = cli(capsys, "record", wf, "--case", "day1", "--live")
    assert code != 0, out + err
    assert "'vault'" in out + err and "$STEPSMITH_CONNECTION_DEMO_VAULT" in out + err
    assert "Traceback" not in out + err and "KeyError" not in out + err
    assert not (wf / "fixtures" / "leak" / "day1.json").exists()


def test_live_run_of_a_case_hands_the_step_its_real_credential(tmp_path, kit, capsys,
                                                               monkeypatch):
    wf = _case_workflow(tmp_path, kit, monkeypatch)
    monkeypatch.setenv("STEPSMITH_CONNECTION_DEMO_VAULT", "y" * 9)
    code, out, err = cli(capsys, "run-workflow", wf, "--case", "day1", "--live",
                         "--run-id", "live", "--format", "json")
    assert code == 0, out + err
    steps = {s["step"]: s for s in json.loads(out)["steps"]}
    assert steps["leak"]["result"]["output"] == {"n": 9}
    code, out, err = cli(capsys, "run-workflow", wf, "--case", "day1", "--format", "json")
    assert code == 0, out + err
    steps = {s["step"]: s for s in json.loads(out)["steps"]}
    assert steps["leak"]["result"]["output"] == {"n": len("stepsmith-placeholder:vault")}
