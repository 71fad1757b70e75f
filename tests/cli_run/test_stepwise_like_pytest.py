"""`stepsmith test --sw` / `--sw-skip` / `--sw-reset` behave as pytest's stepwise
plugin. Differential: the same sequence of runs (fixtures failing, fixed, removed, renamed) is
played on pytest (a generated test file, its real cache) and on stepsmith (matching fixtures,
real sandbox); after every run both must have run and failed the same cases, in order."""

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

pytestmark = pytest.mark.usefixtures("sandbox")

TEST_FILE = '''import json, pathlib

FAIL = set(json.loads((pathlib.Path(__file__).parent / "fail.json").read_text()))
'''

# (cases present, cases failing, flags): every turn of pytest's stepwise state
SCRIPT = [
    ("c1 c2 c3 c4 c5 c6", "c3 c5", ["--sw"]),  # stops at the first failure
    ("c1 c2 c3 c4 c5 c6", "c3 c5", ["--sw"]),  # starts from it: fails again at once
    ("c1 c2 c3 c4 c5 c6", "c5", ["--sw"]),  # fixed: goes on to the next failure
    ("c1 c2 c3 c4 c5 c6", "c5 c6", ["--sw-skip"]),  # skips the first failure, stops at c6
    ("c1 c2 c3 c4 c5 c6", "", ["--stepwise"]),  # from c6 to the end: the state is cleared
    ("c1 c2 c3 c4 c5 c6", "c2", ["--sw"]),  # so everything runs again
    ("c1 c2 c3 c4 c5", "c4", ["--sw"]),  # a fixture removed: the count changed, from the start
    ("c1 c2 c3 c5 c7", "c5", ["--sw"]),  # c4 renamed (same count): not found, from the start
    ("c1 c2 c3 c5 c7", "", ["--sw"]),  # from c5
    ("c1 c2 c3 c5 c7", "c7", ["--sw"]),
    ("c1 c2 c3 c5 c7", "c1", ["--sw-reset"]),  # reset: from the start though c7 failed
    ("c1 c2 c3 c5 c7", "c1", ["--stepwise-skip"]),  # skips c1, runs to the end
    ("c1 c2 c3 c5 c7", "c2 c3", ["--sw"]),  # c1 was the failure skipped: state cleared
    ("c1 c2 c3 c5 c7", "c2 c3", []),  # without --sw: everything, the state is kept
    ("c1 c2 c3 c5 c7", "", ["--sw"]),  # from c2
    ("c1 c2 c3 c5 c7", "c3", ["--sw"]),
    ("c1 c2 c4 c5 c7", "", ["--sw"]),  # c3 not found: all run and pass, and c3 is kept ...
    ("c1 c2 c3 c5 c7", "", ["--sw"]),  # ... so, back, it is where the run starts
]


def _pytest_turn(root, present, failing, flags):
    (root / "fail.json").write_text(json.dumps(failing))
    (root / "test_cases.py").write_text(TEST_FILE + "".join(
        f"\n\ndef test_{c}():\n    assert {c!r} not in FAIL\n" for c in present))
    # pytest with its own plugins only (stepwise and the cache are among them), none of ours
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "--junitxml=report.xml", *flags],
                   cwd=root, env=env, capture_output=True, timeout=120, check=False)
    ran, failed = [], []
    for tc in ET.parse(root / "report.xml").getroot().iter("testcase"):
        name = tc.get("name").removeprefix("test_")
        ran.append(name)
        if tc.find("failure") is not None or tc.find("error") is not None:
            failed.append(name)
    return ran, failed


def _stepsmith_turn(kit, capsys, wf, present, failing, flags):
    fixtures = wf / "fixtures" / "add"
    for f in fixtures.glob("*.json"):
        if f.stem not in present:
            f.unlink()
    for c in present:  # a failing case expects a wrong sum
        kit.write_fixture(wf, f"add/{c}", kit.add_case("1.00", "2.25",
                                                       "0" if c in failing else "3.25"))
    code, out, err = kit.cli(capsys, "test", wf, "--step", "add", "-j", "1", "--format",
                             "json", *flags)
    assert code in (0, 1), out + err
    results = json.loads(out)["results"]
    return ([r["case"] for r in results],
            [r["case"] for r in results if r["outcome"] in ("failed", "error")])


def test_stepwise_runs_as_pytest_does(tmp_path, kit, capsys):
    py = tmp_path / "py"
    py.mkdir()
    (py / "pytest.ini").write_text("[pytest]\n")  # its own rootdir and cache
    wf = kit.write_workflow(tmp_path / "wf")
    for turn, (present, failing, flags) in enumerate(SCRIPT, 1):
        present, failing = present.split(), failing.split()
        want = _pytest_turn(py, present, failing, flags)
        got = _stepsmith_turn(kit, capsys, wf, present, failing, flags)
        assert got == want, f"turn {turn} {flags} failing {failing}: pytest ran/failed " \
                            f"{want}, stepsmith {got}"
    assert (wf / ".stepsmith" / "stepwise.json").is_file()
    assert (wf / ".stepsmith" / ".gitignore").is_file()  # local state, never in git status


def test_text_says_where_the_next_run_starts(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = kit.write_workflow(tmp_path / "wf", fixtures={
        "add/a": kit.add_case("1.00", "2.25", "3.25"),
        "add/b": kit.add_case("1.00", "2.25", "0"),
        "add/c": kit.add_case("1.00", "2.25", "3.25")})
    code, out, _ = kit.cli(capsys, "test", "wf", "--sw", "-j", "1")
    assert code == 1
    assert "stopped at the first failure (--sw): 1 fixture(s) not run" in out
    assert "the next `stepsmith test --sw` starts from wf::add::b" in out
    code, out, _ = kit.cli(capsys, "test", "wf", "--sw", "-j", "1")
    assert "stepwise: skipping 1 already passed fixture(s) (--sw-reset to start over)" in out
    kit.write_fixture(wf, "add/b", kit.add_case("1.00", "2.25", "3.25"))
    code, out, _ = kit.cli(capsys, "test", "wf", "--sw", "-j", "1")
    assert code == 0 and "2 passed" in out
    code, out, _ = kit.cli(capsys, "test", "wf", "--sw", "-j", "1")
    assert "stepwise: no previously failed fixtures, not skipping" in out and "3 passed" in out


def test_the_next_run_starts_in_the_workflow_that_failed(tmp_path, kit, capsys, monkeypatch):
    """State per workflow (as --lf's): the stop in the second workflow skips the first."""
    monkeypatch.chdir(tmp_path)
    ok, bad = kit.add_case("1.00", "2.25", "3.25"), kit.add_case("1.00", "2.25", "0")
    kit.write_workflow(tmp_path / "a", fixtures={"add/x": ok, "add/y": ok})
    kit.write_workflow(tmp_path / "b", fixtures={"add/x": ok, "add/y": bad, "add/z": bad})
    code, out, _ = kit.cli(capsys, "test", "a", "b", "--sw", "-j", "1", "--format", "json")
    doc = json.loads(out)
    assert code == 1 and [r["id"] for r in doc["results"]] == [
        "a::add::x", "a::add::y", "b::add::x", "b::add::y"]
    assert doc["stepwise"]["next_start"] == "b::add::y"
    assert json.loads((tmp_path / "a/.stepsmith/stepwise.json").read_text())["last_failed"] is None
    code, out, _ = kit.cli(capsys, "test", "a", "b", "--sw-skip", "-j", "1", "--format", "json")
    doc = json.loads(out)
    assert [r["id"] for r in doc["results"]] == ["b::add::y", "b::add::z"]
    assert doc["stepwise"] == {"note": "skipping 3 already passed fixture(s) (--sw-reset to "
                                       "start over)", "next_start": "b::add::z"}
