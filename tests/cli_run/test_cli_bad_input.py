"""A new user's mistakes at every `stepsmith` entry point: each gets one clear error line (no
traceback), exit 2 for usage errors, and nothing is lost or half-written."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from stepsmith.runner.cli import main

AT = "2026-12-01T07:00:00+00:00"


def cli(capsys, *argv, stdin: bytes | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    try:
        code = main([*map(str, argv)])
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def one_error(err: str, *needles: str) -> str:
    """The error is one line (argparse adds its usage lines before it), with no traceback."""
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines, "no error message"
    last = lines[-1]
    if not last.startswith("usage:") and not any(line.startswith("usage:") for line in lines):
        assert len(lines) == 1, err
    for n in needles:
        assert n in err, (n, err)
    return last


def snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return kit.full_workflow(tmp_path / "wf")


@pytest.fixture
def inputs(tmp_path):
    p = tmp_path / "in.json"
    p.write_text(json.dumps({"a": "2.00"}))
    return p


# ------------------------------------------------------------------ paths


@pytest.mark.parametrize("command", [
    ["check"], ["reach"], ["test"], ["run", "--step", "add", "--inputs", "-"],
    ["record", "--step", "add", "--inputs", "-", "--at", AT, "--name", "x"],
    ["run-workflow", "--case", "day1"],
])
def test_nonexistent_path(command, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = [command[0], "nope", *command[1:]]
    code, out, err = cli(capsys, *argv)
    assert code == 2 and out == ""
    one_error(err, "nope", "no such file")


def test_replay_nonexistent_path(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, "replay", "day1", "nope")
    assert code == 2 and out == ""
    one_error(err, "no such file")


@pytest.mark.parametrize("command", [
    ["check"], ["reach"], ["test"], ["run", "--step", "add", "--inputs", "in.json"],
    ["record", "--step", "add", "--inputs", "in.json", "--at", AT, "--name", "x"],
    ["run-workflow", "--case", "day1"],
])
def test_folder_without_manifests(command, tmp_path, capsys, monkeypatch, inputs):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    code, out, err = cli(capsys, command[0], "empty", *command[1:])
    assert code == 2
    assert "All checks passed" not in out
    one_error(err, "empty")
    assert "manifest" in err
    assert list((tmp_path / "empty").iterdir()) == []


def test_manifest_path_and_folder_path_are_the_same(wf, capsys, inputs):
    for target in (wf, wf / "workflow.yaml"):
        assert cli(capsys, "check", target)[0] == 0
        assert cli(capsys, "reach", target)[0] == 0
        code, out, _ = cli(capsys, "run", target, "--step", "add", "--inputs", inputs)
        assert code == 0 and "step add: ok" in out


@pytest.mark.parametrize("command", [
    ["reach"], ["run", "--step", "add", "--inputs", "in.json"],
    ["record", "--step", "add", "--inputs", "in.json", "--at", AT, "--name", "x"],
])
def test_a_step_file_is_not_a_manifest(command, wf, capsys, inputs):
    before = snapshot(wf)
    code, out, err = cli(capsys, command[0], wf / "steps" / "calc.py", *command[1:])
    assert code == 2 and out == ""
    one_error(err, "not a workflow manifest")
    assert snapshot(wf) == before


def test_several_manifests_in_a_folder_must_be_named(wf, capsys, inputs):
    (wf / "other.workflow.yaml").write_text((wf / "workflow.yaml").read_text())
    code, _, err = cli(capsys, "run", wf, "--step", "add", "--inputs", inputs)
    assert code == 2
    one_error(err, "several manifests here", "other.workflow.yaml", "name one")
    code, out, _ = cli(capsys, "run", wf / "other.workflow.yaml", "--step", "add", "--inputs",
                       inputs)
    assert code == 0, out


# ------------------------------------------------------------------ --inputs


@pytest.mark.parametrize("content,needles", [
    (b'{"a": "1",\n  }', ["in.json:2:3: invalid JSON"]),
    (b'{"a": \xff}', ["in.json:1:7: not UTF-8"]),
    (b"[1, 2]", ["must be a JSON object", "not a list"]),
    (b"", ["in.json is empty"]),
    (b"  \n", ["in.json is empty"]),
    (b"[" * 100_000, ["in.json", "invalid JSON"]),
])
def test_bad_inputs_file(wf, tmp_path, capsys, content, needles):
    p = tmp_path / "in.json"
    p.write_bytes(content)
    code, out, err = cli(capsys, "run", wf, "--step", "add", "--inputs", p)
    assert code == 2 and out == ""
    one_error(err, *needles)


def test_inputs_file_missing_or_a_folder(wf, tmp_path, capsys):
    code, _, err = cli(capsys, "run", wf, "--step", "add", "--inputs", tmp_path / "missing.json")
    assert code == 2
    one_error(err, "missing.json not found")
    code, _, err = cli(capsys, "run", wf, "--step", "add", "--inputs", tmp_path)
    assert code == 2
    one_error(err, "is a folder")


def test_inputs_from_stdin(wf, capsys, monkeypatch):
    code, out, _ = cli(capsys, "run", wf, "--step", "add", "--inputs", "-",
                       stdin=b'{"a": "3.00"}', monkeypatch=monkeypatch)
    assert code == 0 and '"sum": "3.50"' in out
    code, out, err = cli(capsys, "run", wf, "--step", "add", "--inputs", "-",
                         stdin=b'{"a": ', monkeypatch=monkeypatch)
    assert code == 2
    one_error(err, "<stdin>:1:7: invalid JSON")
    code, out, err = cli(capsys, "run", wf, "--step", "add", "--inputs", "-", stdin=b"",
                         monkeypatch=monkeypatch)
    assert code == 2
    one_error(err, "<stdin> is empty")


# ------------------------------------------------------------------ --at, --seed, --step


@pytest.mark.parametrize("at", ["yesterday", "2026-13-01", "01/12/2026", ""])
def test_at_not_iso_8601(wf, capsys, inputs, at):
    code, out, err = cli(capsys, "run", wf, "--step", "add", "--inputs", inputs, "--at", at)
    assert code == 2 and out == ""
    one_error(err, "is not ISO 8601", "2026-12-01T07:00:00+00:00")


@pytest.mark.parametrize("seed", ["abc", "1.5", ""])
def test_seed_not_an_integer(wf, capsys, inputs, seed):
    code, out, err = cli(capsys, "run", wf, "--step", "add", "--inputs", inputs, "--seed", seed)
    assert code == 2 and out == ""
    one_error(err, "--seed: invalid int value")


@pytest.mark.parametrize("command", [
    ["run", "--inputs", "in.json"], ["record", "--inputs", "in.json", "--at", AT, "--name", "x"],
    ["test"],
])
def test_unknown_step_suggests_the_close_one(command, wf, capsys, inputs):
    before = snapshot(wf)
    code, out, err = cli(capsys, command[0], wf, "--step", "ad", *command[1:])
    assert code == 2 and out == ""
    one_error(err, "no step 'ad'", "did you mean 'add'?", "double")
    assert snapshot(wf) == before


def test_test_selection_matching_nothing(wf, capsys):
    code, out, err = cli(capsys, "test", wf, "-k", "no-such-case")
    assert code == 2 and out == ""
    one_error(err, "no fixtures matched -k no-such-case")


# ------------------------------------------------------------------ record


@pytest.mark.parametrize("name", ["../evil", "a/b", "..", ".hidden", "Acme", "x" * 101, "",
                                  "a\\b", "/abs"])
def test_record_name_must_be_a_slug(wf, tmp_path, capsys, inputs, name):
    before = snapshot(tmp_path)
    code, out, err = cli(capsys, "record", wf, "--step", "add", "--inputs", inputs, "--at", AT,
                         "--name", name)
    assert code == 2 and out == ""
    one_error(err, "is not a case name")
    assert snapshot(tmp_path) == before  # nothing written anywhere


def test_record_over_an_existing_fixture_changes_nothing(wf, capsys, inputs):
    target = wf / "fixtures" / "add" / "simple.json"
    before = target.read_bytes()
    code, out, err = cli(capsys, "record", wf, "--step", "add", "--inputs", inputs, "--at", AT,
                         "--name", "simple")
    assert code == 2 and out == ""
    one_error(err, "fixtures/add/simple.json exists", "--force")
    assert target.read_bytes() == before
    assert sorted(p.name for p in target.parent.iterdir()) == ["both.json", "simple.json"]
    code, out, _ = cli(capsys, "record", wf, "--step", "add", "--inputs", inputs, "--at", AT,
                       "--name", "simple", "--force")
    assert code == 0 and json.loads(target.read_text())["inputs"] == {"a": "2.00"}


def test_write_atomic_never_clobbers_without_overwrite(tmp_path):
    from stepsmith.runner.cli.record import write_atomic

    target = tmp_path / "f" / "case.json"
    write_atomic(target, "one", overwrite=False)
    with pytest.raises(FileExistsError):
        write_atomic(target, "two", overwrite=False)
    assert target.read_text() == "one"
    assert [p.name for p in target.parent.iterdir()] == ["case.json"]  # no temporary left


# ------------------------------------------------------------------ run-workflow, replay


def test_run_workflow_unknown_case_lists_the_available_ones(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = kit.run_workflow_dir(tmp_path / "wf")
    for case, needles in (("day2", ["no workflow case 'day2'", "did you mean 'day1'?",
                                    "available: day1"]),
                          ("nope", ["no workflow case 'nope'", "available: day1"]),
                          ("../day1", ["must be a file name without a folder", "day1"]),
                          ("_workflow/day1", ["must be a file name"])):
        code, out, err = cli(capsys, "run-workflow", wf, "--case", case)
        assert code == 2 and out == "", (case, out)
        one_error(err, *needles)
    assert not (wf / ".stepsmith").exists()  # nothing stored, nothing created


@pytest.mark.parametrize("run_id", ["", "a/b", "../x", " x", "-x"])
def test_run_workflow_bad_run_id(tmp_path, kit, capsys, monkeypatch, run_id):
    monkeypatch.chdir(tmp_path)
    wf = kit.run_workflow_dir(tmp_path / "wf")
    code, out, err = cli(capsys, "run-workflow", wf, "--case", "day1", f"--run-id={run_id}")
    assert code == 2 and out == ""
    one_error(err, "run id")
    assert not (wf / ".stepsmith").exists()


def test_workflow_without_cases(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = kit.full_workflow(tmp_path / "wf", fixtures={})
    code, out, err = cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code == 2 and out == ""
    one_error(err, "no workflow case 'day1'", "add fixtures/_workflow/<case>.json")


def test_replay_unknown_run(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = kit.run_workflow_dir(tmp_path / "wf")
    code, out, err = cli(capsys, "replay", "day1", wf)  # nothing accepted yet
    assert code == 2 and out == ""
    one_error(err, "no run 'day1'", "stepsmith run-workflow")
    assert not (wf / ".stepsmith").exists()
    assert cli(capsys, "run-workflow", wf, "--case", "day1")[0] == 0
    code, out, err = cli(capsys, "replay", "day9", wf)
    assert code == 2 and out == ""
    one_error(err, "no accepted results for run 'day9'", "runs in this store: day1")


# ------------------------------------------------------------------ test: no fixtures


def test_workflow_without_fixtures(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = kit.full_workflow(tmp_path / "wf", fixtures={})
    code, out, _ = cli(capsys, "test", wf)
    assert code == 0
    assert "no fixtures found in wf" in out and "fixtures/s" not in out
    code, out, _ = cli(capsys, "test", wf, "--format", "json")
    summary = json.loads(out)["summary"]
    assert code == 0 and summary["total"] == 0 and summary["fixtures_per_second"] is None


def test_broken_workflow_without_fixtures_still_fails(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = kit.write_workflow(tmp_path / "wf", files={"steps/calc.py": "import os\n" + kit.ADD_CODE})
    code, out, _ = cli(capsys, "test", wf)
    assert code == 1
    assert "has check problems, and it has no fixtures" in out
    assert "fixtures/s" not in out  # nothing ran: no rate


@pytest.mark.parametrize("steps", ["3", "x", "{a: 1}", "null", "[3, x]"])
def test_a_manifest_whose_steps_are_not_a_list_of_steps(tmp_path, kit, capsys, monkeypatch,
                                                        steps):
    """`steps: 3` beside a fixtures folder crashed `test` (reading the declared step ids)."""
    monkeypatch.chdir(tmp_path)
    wf = kit.write_workflow(tmp_path / "wf", fixtures={"add/x": kit.add_case("1.00", None, "1.5")})
    (wf / "workflow.yaml").write_text(f"workflow: wf\nversion: 1\nsteps: {steps}\n")
    (wf / "b.workflow.yaml").write_text(f"workflow: b\nversion: 1\nsteps: {steps}\n")
    code, out, err = cli(capsys, "test", wf)
    assert code == 1 and "Traceback" not in out + err and "internal error" not in out + err
    assert "has check problems" in out


def test_two_workflows_one_without_fixtures(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kit.full_workflow(tmp_path / "a")
    kit.full_workflow(tmp_path / "b", fixtures={})
    code, out, _ = cli(capsys, "test", tmp_path)
    assert code == 0
    assert "no fixtures found for: b" in out
    assert "fixtures/s" in out  # a ran


def test_junit_report_into_a_missing_folder_fails_before_running(wf, tmp_path, capsys):
    code, out, err = cli(capsys, "test", wf, "--junit-xml", tmp_path / "no" / "report.xml")
    assert code == 2 and out == ""
    one_error(err, "cannot write", "no such folder")


# ------------------------------------------------------------------ argparse-level mistakes


@pytest.mark.parametrize("argv,needle", [
    (["bogus"], "invalid choice: 'bogus'"),
    (["schema", "extra"], "unrecognized arguments: extra"),
    (["rules", "--format", "xml"], "invalid choice: 'xml'"),
    (["run", "wf"], "required: --step, --inputs"),
    (["record", "wf", "--step", "add", "--inputs", "-", "--name", "x"], "required: --at"),
    (["test", "-j", "0"], "-j must be at least 1"),
])
def test_usage_errors(argv, needle, wf, capsys):
    code, _, err = cli(capsys, *argv)
    assert code == 2
    one_error(err, needle)


def test_unknown_rule(capsys):
    code, out, err = cli(capsys, "rule", "SS999")
    assert code == 2 and out == ""
    one_error(err, "unknown rule code 'SS999'")


# ------------------------------------------------------------------ Ctrl-C


SPIN = "def spin(a):\n    n = 0\n    while True:\n        n += 1\n"


@pytest.mark.usefixtures("sandbox")
@pytest.mark.parametrize("command", ["run", "record", "test"])
def test_ctrl_c_is_one_line_exit_130_and_writes_nothing(command, tmp_path, kit):
    m = kit.demo_manifest(steps=[{"id": "spin", "explanation": "Spins.",
                                  "code": "steps/spin.py:spin", "inputs": {"a": "1"}}])
    wf = kit.write_workflow(tmp_path / "wf", m, {"steps/spin.py": SPIN}, fixtures={
        "spin/one": {"inputs": {}, "evaluation_time": None, "expected": {"status": "cpu_limit"}}})
    (tmp_path / "in.json").write_text("{}")
    before = snapshot(wf)
    argv = {"run": ["run", str(wf), "--step", "spin", "--inputs", "in.json"],
            "record": ["record", str(wf), "--step", "spin", "--inputs", "in.json", "--at", AT,
                       "--name", "interrupted"],
            "test": ["test", str(wf)]}[command]
    proc = subprocess.Popen([sys.executable, "-m", "stepsmith.runner.cli", *argv], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    time.sleep(1.0)  # inside the sandbox by now
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "stepsmith: interrupted"
    assert snapshot(wf) == before  # no fixture, no temporary file, no store


def test_ctrl_c_turned_into_another_error_by_a_library_is_still_an_interrupt(monkeypatch, capsys):
    # seen under load: SIGINT during pydantic's start-up came out as a SchemaError, exit 2
    from stepsmith.runner.cli import test as test_cmd

    def interrupted_inside_a_library(args):
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt as exc:
            raise RuntimeError("schema build failed") from exc  # what the library does
        return 0

    monkeypatch.setattr(test_cmd, "run", interrupted_inside_a_library)
    code = main(["test", "."])
    _, err = capsys.readouterr()
    assert code == 130
    assert err.strip().splitlines()[-1] == "stepsmith: interrupted"
    assert "internal error" not in err
