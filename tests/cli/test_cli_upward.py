"""The CLI finds a path's workflow UPWARD (as git/pytest/ruff find their root), through
the one discovery (runner/workspace/discovery.py): `cd wf/steps && stepsmith check` checks the
workflow, never "no workflow manifests found" with exit 0."""

import json

import pytest
from stepsmith.runner.cli import main

BAD_BILL = "import os\n\n\ndef bill(items, effects):\n    return {'count': len(os.name)}\n"


def run(capsys, *argv):
    try:
        code = main([*map(str, argv)])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    root = kit.full_workflow(tmp_path / "wf")
    monkeypatch.chdir(tmp_path)
    return root


def test_check_inside_steps_finds_the_violation(wf, capsys, monkeypatch):
    (wf / "steps" / "bill.py").write_text(BAD_BILL)
    monkeypatch.chdir(wf / "steps")
    code, out, err = run(capsys, "check")
    assert code == 1, (out, err)
    assert "no workflow manifests" not in err
    assert "bill.py:1:8: SS101" in out
    # `os` is still used: removing the import is no fix (it would leave `os` undefined)
    assert out.splitlines()[-1] == "Found 1 problem in 1 file."
    assert "fixable" not in out
    # a folder inside the workflow given as PATH, and a step file given relative to here
    assert run(capsys, "check", ".")[0] == 1
    code, out, _ = run(capsys, "check", "bill.py")
    assert code == 1 and "SS101" in out
    code, out, _ = run(capsys, "check", "--format", "json")
    assert code == 1 and [p["code"] for p in json.loads(out)["problems"]] == ["SS101"]


def test_check_inside_a_clean_workflow_passes(wf, capsys, monkeypatch):
    monkeypatch.chdir(wf / "fixtures" / "add")
    assert run(capsys, "check") == (0, "All checks passed!\n", "")
    monkeypatch.chdir(wf.parent)
    assert run(capsys, "check", "wf/steps")[:2] == (0, "All checks passed!\n")


def test_reach_inside_steps_shows_the_workflow(wf, capsys, monkeypatch):
    monkeypatch.chdir(wf / "steps")
    code, out, err = run(capsys, "reach", "--format", "json")
    assert code == 0, err
    (w,) = json.loads(out)["workflows"]
    assert w["workflow"] == "demo" and [s["step_id"] for s in w["steps"]][:2] == ["add",
                                                                                "double"]
    monkeypatch.chdir(wf.parent)
    code, out, err = run(capsys, "reach", "wf/fixtures", "--format", "json")
    assert code == 0, err
    assert [w["workflow"] for w in json.loads(out)["workflows"]] == ["demo"]
