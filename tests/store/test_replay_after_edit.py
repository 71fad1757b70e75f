"""A step whose code changed since the run was accepted is
re-executed with the current code on the stored request (same inputs, pinned time and seed)
and its output diff against the accepted output is shown — typed in JSON, rendered as the
fixtures render theirs in text — beside the code diff; exit 1. The refusal says what changed
in the author's terms, with no hash repeated. Real sandbox, real SQLite store."""

import json
import re

import pytest

pytestmark = pytest.mark.usefixtures("sandbox")


@pytest.fixture
def edited(tmp_path, kit, capsys):
    """Run day1 accepted, then `add` edited to add one more."""
    wf = kit.run_workflow_dir(tmp_path / "wf")
    assert kit.cli(capsys, "run-workflow", wf, "--case", "day1")[0] == 0
    calc = wf / "steps" / "calc.py"
    calc.write_text(calc.read_text().replace("Decimal(a) + Decimal(b))",
                                             "Decimal(a) + Decimal(b) + 1)"))
    return wf


def _block(out: str, step: str) -> str:
    """The lines of one step's outcome in the text report."""
    m = re.search(rf"^✗ changed +{step} .*?(?=^\S)", out, re.DOTALL | re.MULTILINE)
    assert m, out
    return m.group(0)


def test_text_shows_the_output_diff_of_the_edit(edited, kit, capsys):
    code, out, err = kit.cli(capsys, "replay", "day1", edited)
    assert code == 1, out + err
    add = _block(out, "add")
    assert "the code in steps/calc.py changed since run 'day1' was accepted" in add
    assert "what changed in the code since it was accepted:" in add
    assert "+    return {\"sum\": str(Decimal(a) + Decimal(b) + 1)}" in add
    assert ("re-executed with the current code (same inputs, time 2026-12-01T07:00:00+00:00, "
            "seed 11): the output changes") in add
    assert 'output.sum: expected "1.75", got "2.75"' in add
    # `double` shares the file, not the edit: its output is unchanged with the current code
    double = _block(out, "double")
    assert "the output is the same" in double and "output.twice" not in double
    # one hash per step (the ✗ line's request), shortened; no 64-hex anywhere
    assert not re.search(r"[0-9a-f]{64}", out + err)
    assert "sha256" not in add and "code_hash" not in add
    assert "replay day1: 1 identical, 1 recorded (not re-executed), 3 differ or changed" in out


def test_json_carries_the_output_diff_typed(edited, kit, capsys):
    code, out, err = kit.cli(capsys, "replay", "day1", edited, "--format", "json")
    assert code == 1, out + err
    steps = {s["step"]: s for s in json.loads(out)["steps"]}
    add = steps["add"]
    assert add["outcome"] == "changed"
    assert add["reexecuted"] is True
    assert add["differences"] == [{"path": "output.sum", "kind": "changed",
                                   "message": 'expected "1.75", got "2.75"',
                                   "expected": "1.75", "actual": "2.75"}]
    assert add["result"]["status"] == "ok" and add["result"]["output"] == {"sum": "2.75"}
    assert add["accepted"]["output"] == {"sum": "1.75"}
    assert add["code_diff"].startswith("--- accepted steps/calc.py\n+++ current steps/calc.py")
    assert add["changes"] == ["code"]
    assert steps["double"]["differences"] == [] and steps["double"]["reexecuted"] is True
    assert steps["bill"]["outcome"] == "same" and steps["bill"]["code_diff"] == ""


def test_an_edit_that_breaks_the_step_shows_the_error(tmp_path, kit, capsys):
    wf = kit.run_workflow_dir(tmp_path / "wf")
    assert kit.cli(capsys, "run-workflow", wf, "--case", "day1")[0] == 0
    calc = wf / "steps" / "calc.py"
    calc.write_text(calc.read_text().replace("return {\"sum\"", "raise ValueError('no')\n"
                                             "    return {\"sum\""))
    code, out, err = kit.cli(capsys, "replay", "day1", wf)
    assert code == 1, out + err
    add = _block(out, "add")
    assert "the step fails" in add and "status: expected 'ok', got 'error'" in add
    assert "ValueError: no" in add


def test_run_workflow_refusal_names_the_code_once(edited, kit, capsys):
    code, _, err = kit.cli(capsys, "run-workflow", edited, "--case", "day1")
    assert code == 1
    assert "the step's code changed" in err
    assert "code_hash" not in err
    # the request's two hashes, shortened, and nothing else hex-like
    assert len(re.findall(r"\b[0-9a-f]{12}…", err)) == 2, err
    assert "`stepsmith replay day1" in err  # where to see what the change does


def test_a_replay_that_stops_says_so(tmp_path, kit, capsys):
    """A refusal mid-replay (a step accepted by another runtime) ends with a ✗ line and the
    replay's summary on stdout, as run-workflow's does, the reason on stderr."""
    import sqlite3

    from stepsmith.runner.store.db import store_path

    wf = kit.run_workflow_dir(tmp_path / "wf")
    assert kit.cli(capsys, "run-workflow", wf, "--case", "day1")[0] == 0
    con = sqlite3.connect(store_path(wf))
    con.execute("UPDATE accepted SET harness_source_sha256 = ? WHERE step_id = 'double'",
                ("0" * 64,))
    con.commit()
    con.close()
    code, out, err = kit.cli(capsys, "replay", "day1", wf)
    assert code == 1
    assert "✓ same     add" in out
    assert "✗ stopped: run 'day1', step 'double': the accepted result was produced by a " \
           "different runtime" in out
    assert "replay day1: stopped — 1 identical, 0 recorded, 0 differ or changed, 1 refused " \
           "(the reason is on stderr)" in out
    assert "different runtime" in err and not re.search(r"[0-9a-f]{64}", out + err)
