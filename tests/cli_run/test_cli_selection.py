"""`stepsmith test` selection and output as pytest users expect: `-k` expressions,
paths of fixture and step files, node ids, --lf, -x/--maxfail, --durations, -v; the pytest
plugin's `::` selection and its "recorded" count. Real sandbox."""

import json
import os
import subprocess
import sys

import pytest
from stepsmith.runner.cli import main

pytestmark = pytest.mark.usefixtures("sandbox")


def run(capsys, *argv):
    try:
        code = main(["test", *map(str, argv)])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def ids(capsys, *argv):
    code, out, err = run(capsys, *argv, "--format", "json")
    assert code in (0, 1), (out, err)
    return sorted(r["id"] for r in json.loads(out)["results"])


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return kit.full_workflow(tmp_path / "wf")


def test_k_takes_pytest_expressions(wf, capsys):
    assert ids(capsys, "wf", "-k", "double or clock") == ["wf::clock::pinned",
                                                         "wf::double::from-add"]
    # a bare word matches as a substring, as in pytest: "add" is also in "from-add"
    assert ids(capsys, "wf", "-k", "add and not both") == ["wf::add::simple",
                                                         "wf::double::from-add"]
    assert ids(capsys, "wf", "-k", "add and not both and not double") == ["wf::add::simple"]
    assert ids(capsys, "wf", "-k", "(wf::add or bill) and not simple") == ["wf::add::both",
                                                                      "wf::bill::two"]
    # repeated -k accumulate (any of them), like repeated --step
    assert ids(capsys, "wf", "-k", "clock", "-k", "bill") == ["wf::bill::two",
                                                             "wf::clock::pinned"]
    assert ids(capsys, "wf", "-k", "wf::add::simple") == ["wf::add::simple"]


@pytest.mark.parametrize("expr,col", [("add and", 8), ("(add", 5), ("add or or", 8),
                                      ("not", 4), ("a 'b", 3)])
def test_a_bad_k_expression_is_exit_2_with_its_position(wf, capsys, expr, col):
    code, out, err = run(capsys, "wf", "-k", expr)
    assert code == 2 and out == ""
    assert f"-k {expr!r}: invalid expression at column {col}" in err
    assert err.splitlines()[-1] == "  " + " " * (col - 1) + "^"


def test_a_fixture_file_runs_just_that_fixture(wf, capsys):
    assert ids(capsys, "wf/fixtures/add/simple.json") == ["wf::add::simple"]
    assert ids(capsys, "wf/fixtures/add/simple.json", "wf/fixtures/bill/two.json") == [
        "wf::add::simple", "wf::bill::two"]


def test_a_step_file_runs_the_steps_defined_in_it(wf, capsys):
    assert ids(capsys, "wf/steps/bill.py") == ["wf::bill::two"]
    assert ids(capsys, "wf/steps/calc.py") == ["wf::add::both", "wf::add::simple",
                                              "wf::boom::raises", "wf::clock::pinned",
                                              "wf::double::from-add"]


def test_a_step_file_narrows_the_same_through_a_symlinked_folder(wf, capsys, tmp_path):
    # the workflow found through a link, the step file named by its real path (and the
    # reverse): the paths are compared with symlinks resolved on both sides
    (tmp_path / "link").symlink_to(tmp_path / "wf", target_is_directory=True)
    calc = ["wf::add::both", "wf::add::simple", "wf::boom::raises", "wf::clock::pinned",
            "wf::double::from-add"]
    assert ids(capsys, "link/steps/calc.py") == calc
    assert ids(capsys, "link/steps/bill.py", "wf/fixtures/add/simple.json") == [
        "wf::add::simple", "wf::bill::two"]
    assert ids(capsys, "link/fixtures/add") == ["wf::add::both", "wf::add::simple"]


def test_node_ids_select_exactly(wf, capsys):
    assert ids(capsys, "wf::add::simple") == ["wf::add::simple"]
    assert ids(capsys, "wf::add") == ["wf::add::both", "wf::add::simple"]
    assert ids(capsys, "wf/workflow.yaml::bill::two") == ["wf::bill::two"]
    code, _, err = run(capsys, "wf::add::nosuch")
    assert code == 2 and "no fixtures matched wf::add::nosuch" in err
    code, _, err = run(capsys, "nowhere::add")
    assert code == 2 and "nowhere: no such file or directory" in err
    code, _, err = run(capsys, "wf::a::b::c")
    assert code == 2 and "PATH::step::case" in err


def break_add_simple(wf):
    p = wf / "fixtures" / "add" / "simple.json"
    doc = json.loads(p.read_text())
    doc["expected"]["output"]["sum"] = "9.99"
    p.write_text(json.dumps(doc))
    return p, doc


def test_last_failed_runs_only_what_failed(wf, capsys):
    p, doc = break_add_simple(wf)
    code, out, _ = run(capsys, "wf")
    assert code == 1
    assert ids(capsys, "wf", "--lf") == ["wf::add::simple"]
    doc["expected"]["output"]["sum"] = "1.50"
    p.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "wf", "--lf")
    assert code == 0 and "1 passed" in out
    # nothing failed last time: --lf runs everything, and says so
    code, out, _ = run(capsys, "wf", "--lf")
    assert code == 0 and "no previously failed fixtures" in out and "6 passed" in out


def test_last_failed_remembers_fixtures_that_could_not_run(wf, capsys):
    """An error (the fixture could not run: here its file is not JSON) is a failure for --lf,
    as pytest counts errors: the next --lf runs it, and only it."""
    bad = wf / "fixtures" / "add" / "simple.json"
    good = bad.read_text()
    bad.write_text("{not json")
    code, out, _ = run(capsys, "wf", "--format", "json")
    assert code == 1
    (result,) = [r for r in json.loads(out)["results"] if r["id"] == "wf::add::simple"]
    assert result["outcome"] == "error"
    assert ids(capsys, "wf", "--lf") == ["wf::add::simple"]
    bad.write_text(good)
    code, out, _ = run(capsys, "wf", "--lf")
    assert code == 0 and "1 passed" in out


def test_maxfail_stops_after_n_failures(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fx = kit.passing_fixtures()
    for key in ("add/simple", "add/both"):
        fx[key]["expected"]["output"]["sum"] = "0"
    kit.full_workflow(tmp_path / "wf", fx)
    code, out, _ = run(capsys, "wf", "-x", "-j", "1")
    assert code == 1 and "stopped after 1 failure" in out
    assert "1 failed" in out and "6 not run" in out
    code, out, _ = run(capsys, "wf", "--maxfail", "2", "-j", "1")
    assert code == 1 and "2 failed" in out and "stopped after 2 failures" in out
    code, _, err = run(capsys, "wf", "--maxfail", "0")
    assert code == 2 and "--maxfail" in err


def test_verbose_lists_every_fixture_with_its_time_and_durations(wf, capsys):
    code, out, _ = run(capsys, "wf", "-v")
    assert code == 0
    lines = [ln for ln in out.splitlines() if ln.startswith(("PASSED", "RECORDED"))]
    assert len(lines) == 7
    assert any(ln.startswith("PASSED wf::add::simple") and ln.endswith(" ms)") for ln in lines)
    assert any(ln.startswith("RECORDED wf::fetch::recorded") for ln in lines)
    code, out, _ = run(capsys, "wf", "--durations", "2")
    assert code == 0 and "slowest 2 fixtures" in out
    block = out.split("slowest 2 fixtures")[1].splitlines()[1:3]
    assert all("wf::" in ln and ln.strip().endswith("ms") for ln in block), block
    code, _, err = run(capsys, "wf", "--durations", "-1")
    assert code == 2 and "--durations" in err


def pytest_run(cwd, *args):
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p",
                        "stepsmith.runner.pytest_plugin", *args], cwd=cwd, capture_output=True,
                       text=True, timeout=300, check=False, env=env)
    return p.returncode, p.stdout + p.stderr


def test_pytest_plugin_node_ids_and_files_select(wf, tmp_path):
    code, out = pytest_run(tmp_path, "--stepsmith", "wf::add::simple", "-q")
    assert code == 0 and "1 passed" in out, out
    code, out = pytest_run(tmp_path, "--stepsmith", "wf", "wf::bill::two", "-q")
    assert code == 0 and "1 passed" in out, out
    code, out = pytest_run(tmp_path, "--stepsmith", "wf/fixtures/add/both.json", "-q")
    assert code == 0 and "1 passed" in out, out
    code, out = pytest_run(tmp_path, "--stepsmith", "wf/steps/bill.py", "-q")
    assert code == 0 and "1 passed" in out, out


def test_recorded_counts_the_same_in_the_plugin_and_stepsmith_test(wf, tmp_path, capsys):
    code, out = pytest_run(tmp_path, "--stepsmith", "wf")
    assert code == 0 and "6 passed, 1 recorded" in out, out
    code, out, _ = run(capsys, "wf")
    assert code == 0 and "6 passed, 1 recorded" in out


def test_shards_partition_the_suite_and_learn_durations(wf, capsys, tmp_path):
    everything = ids(capsys, "wf")
    parts = [ids(capsys, "wf", "--shard", f"{k}/3") for k in (1, 2, 3)]
    assert sorted(i for p in parts for i in p) == everything  # the union, nothing twice
    assert all(parts)
    # the run above wrote each workflow's durations; a shared file works for a CI cache
    assert (wf / ".stepsmith" / "durations.json").is_file()
    stored = (wf / ".stepsmith" / "durations.json").read_text()
    assert ids(capsys, "wf", "--shard", "1/3") == parts[0]  # shards never rewrite them
    assert (wf / ".stepsmith" / "durations.json").read_text() == stored
    cache = tmp_path / "durations.json"
    assert ids(capsys, "wf", "--durations-path", cache) == everything  # the full run records
    import json as _json

    known = _json.loads(cache.read_text())
    assert set(known) == set(everything) and all(v >= 0 for v in known.values())
    halves = [ids(capsys, "wf", "--shard", f"{k}/2", "--durations-path", cache) for k in (1, 2)]
    assert sorted(i for p in halves for i in p) == everything
    assert _json.loads(cache.read_text()) == known
    code, out, err = run(capsys, "wf", "--shard", "4/3")
    assert code == 2 and "K must be between 1 and 3" in err
