"""`stepsmith test` (and the pytest plugin) find a path's workflow UPWARD through the
one discovery: inside `steps/` or `fixtures/<step>/`, with a step or fixture file given relative
to there, or with a folder inside the workflow as PATH, exactly what lies at or under that path
runs. Real sandbox."""

import json
import os
import subprocess
import sys

import pytest
from stepsmith.runner.cli import main

pytestmark = pytest.mark.usefixtures("sandbox")

CALC = ["wf::add::both", "wf::add::simple", "wf::boom::raises", "wf::clock::pinned",
        "wf::double::from-add"]


def ids(capsys, *argv):
    try:
        code = main(["test", *map(str, argv), "--format", "json"])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    assert code in (0, 1), (out, err)
    return sorted(r["id"] for r in json.loads(out)["results"])


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    root = kit.full_workflow(tmp_path / "wf")
    monkeypatch.chdir(tmp_path)
    return root


def test_inside_steps_runs_the_workflow(wf, capsys, monkeypatch):
    monkeypatch.chdir(wf / "steps")
    assert ids(capsys) == sorted(CALC + ["wf::bill::two", "wf::fetch::recorded"])
    assert ids(capsys, "bill.py") == ["wf::bill::two"]
    assert ids(capsys, "calc.py") == CALC
    assert ids(capsys, "../fixtures/add/simple.json") == ["wf::add::simple"]


def test_a_fixture_folder_runs_its_fixtures(wf, capsys, monkeypatch):
    assert ids(capsys, "wf/fixtures/add") == ["wf::add::both", "wf::add::simple"]
    monkeypatch.chdir(wf / "fixtures" / "add")
    assert ids(capsys) == ["wf::add::both", "wf::add::simple"]
    assert ids(capsys, "simple.json") == ["wf::add::simple"]


def test_a_failing_fixture_inside_steps_fails(wf, capsys, monkeypatch, kit):
    fx = kit.passing_fixtures()["add/simple"]
    fx["expected"]["output"]["sum"] = "9.99"
    kit.write_fixture(wf, "add/simple", fx)
    monkeypatch.chdir(wf / "steps")
    code = main(["test", "calc.py"])
    out, err = capsys.readouterr()
    assert code == 1 and "FAILED wf::add::simple" in out, (out, err)


def pytest_run(cwd, *args):
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p",
                        "stepsmith.runner.pytest_plugin", *args], cwd=cwd, capture_output=True,
                       text=True, timeout=300, check=False, env=env)
    return p.returncode, p.stdout + p.stderr


def test_pytest_plugin_collects_a_step_file_or_folder_via_its_manifest(wf):
    code, out = pytest_run(wf.parent, "--stepsmith", "wf/steps/bill.py", "--co", "-q")
    assert code == 0, out
    assert [x for x in out.splitlines() if "::" in x] == ["wf::bill::two"]
    code, out = pytest_run(wf.parent, "--stepsmith", "wf/fixtures/add", "--co", "-q")
    assert code == 0, out
    assert [x for x in out.splitlines() if "::" in x] == ["wf::add::both", "wf::add::simple"]
    code, out = pytest_run(wf / "steps", "--stepsmith", ".", "-q")
    assert code == 0, out
    assert "6 passed, 1 recorded" in out


def test_review_inside_steps_reviews_the_changes_of_the_steps_there(wf, capsys, monkeypatch,
                                                                    kit):
    for name in ("add/simple", "bill/two"):
        fx = kit.passing_fixtures()[name]
        fx["expected"]["output"] = {"sum": "0"} if name == "add/simple" else {"count": 9}
        kit.write_fixture(wf, name, fx)
    assert main(["test", "wf"]) == 1
    capsys.readouterr()
    monkeypatch.chdir(wf / "steps")
    assert main(["review", "--list"]) == 0
    out = capsys.readouterr().out
    assert "wf::add::simple" in out and "wf::bill::two" in out, out
    assert main(["review", "bill.py", "--accept"]) == 0
    out = capsys.readouterr().out
    assert "accepted 1, rejected 0, skipped 0" in out and "wf::bill::two" in out
    assert (wf / ".stepsmith" / "pending" / "add" / "simple.json").exists()
    assert not (wf / ".stepsmith" / "pending" / "bill" / "two.json").exists()
