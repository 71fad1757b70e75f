"""A step's print() output (captured and capped by the sandbox) shown in `stepsmith run` and
in pytest's captured-output section (`stepsmith test` is covered in test_cli_review.py)."""

import io
import json
import sys

import pytest
from pytest_kit import pytest_run
from stepsmith.runner.cli import main
from wfkit import PRINTING

pytestmark = pytest.mark.usefixtures("sandbox")



def test_run_shows_captured_stdout(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kit.write_workflow(tmp_path / "wf", files={"steps/calc.py": PRINTING})
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(
        {"a": "2.00"}).encode())))
    code = main(["run", "wf", "--step", "add", "--inputs", "-"])
    out = capsys.readouterr().out
    assert code == 0
    assert "captured stdout" in out and "adding 2.00 0.50" in out


def test_pytest_captured_stdout_section(tmp_path, kit):
    fx = {"add/simple": kit.add_case("1.00", None, "1.5")}
    kit.write_workflow(tmp_path / "wf", files={"steps/calc.py": PRINTING}, fixtures=fx)
    code, out = pytest_run(tmp_path, "--stepsmith", "wf")
    assert code == 1, out
    assert "Captured stdout call" in out and "adding 1.00 0.50" in out
