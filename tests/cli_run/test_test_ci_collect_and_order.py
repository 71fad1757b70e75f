"""Under `CI=true` no pending file is written (as insta's `--ci`), and the
run says so; `--collect-only` lists the selected node ids without running anything; `--ff`
runs what failed last time first, as pytest's. Real CLI, real sandbox."""

import re

import pytest
from wfkit import cli

pytestmark = pytest.mark.usefixtures("sandbox")


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fx = {"add/a-good": kit.add_case("1.00", None, "1.50"),
          "add/z-bad": kit.add_case("1.00", None, "9")}
    return kit.write_workflow(tmp_path / "wf", fixtures=fx)


def test_no_pending_files_under_ci_and_it_says_so(wf, capsys, monkeypatch):
    monkeypatch.setenv("CI", "true")
    code, out, _ = cli(capsys, "test", "wf")
    assert code == 1
    assert not (wf / ".stepsmith" / "pending").exists()
    assert "CI" in out and "1 pending change(s) not written" in out, out
    monkeypatch.setenv("CI", "false")
    code, out, _ = cli(capsys, "test", "wf")
    assert (wf / ".stepsmith" / "pending" / "add" / "z-bad.json").exists()


def test_collect_only_lists_and_runs_nothing(wf, capsys):
    code, out, _ = cli(capsys, "test", "wf", "--collect-only", "-k", "good")
    assert code == 0
    assert out.splitlines()[0] == "wf::add::a-good"
    assert "1 fixture(s) selected" in out and "passed" not in out
    assert not (wf / ".stepsmith" / "lastfailed.json").exists()


def test_failed_first(wf, capsys):
    cli(capsys, "test", "wf")
    code, out, _ = cli(capsys, "test", "wf", "--ff", "-v", "-j", "1")
    ids = re.findall(r"^(?:PASSED|FAILED) (\S+) \(", out, re.M)  # the -v lines
    assert ids[:1] == ["wf::add::z-bad"] and len(ids) == 2, out


def test_default_jobs_is_twice_the_cpus():
    """Measured (runner/app/case_run.default_jobs): latency-bound sandboxes run faster with
    more than one per CPU; twice keeps a step at its CPU limit inside the wall limit."""
    import os

    from stepsmith.runner.app.case_run import default_jobs

    assert default_jobs() == 2 * os.cpu_count()


def test_a_metadata_only_pending_change_is_labelled_so(wf, capsys):
    """`record --case` again with only `recorded_from` different: not a "changed output"."""
    import json

    from stepsmith.runner.app import pending
    from stepsmith.runner.fixtures.load import load_fixture

    fx, _ = load_fixture(wf / "fixtures" / "add" / "a-good.json")
    doc = fx.to_json()
    doc["recorded_from"] = {"case": "day1", "upstream": {}}
    pending.write(wf, "add", "a-good", doc, fx.sha256,
                  code=("steps/calc.py", (wf / "steps" / "calc.py").read_bytes()))
    code, out, _ = cli(capsys, "review", "wf", "--list")
    assert "metadata only" in out and "changed output" not in out, out
    doc["expected"]["output"]["sum"] = "2.00"
    pending.write(wf, "add", "a-good", doc, fx.sha256,
                  code=("steps/calc.py", (wf / "steps" / "calc.py").read_bytes()))
    code, out, _ = cli(capsys, "review", "wf", "--list")
    assert "changed output" in out and json
