"""Audit replay (issue 11, item 7): `replay RUN --stored-code` re-executes with the source the
store kept; the default replay shows what changed in the code."""

import json
import sqlite3

import pytest
from stepsmith.runner.cli import main
from stepsmith.runner.store import store_path

pytestmark = pytest.mark.usefixtures("sandbox")


def cli(capsys, *argv):
    code = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def edited(tmp_path, kit, capsys):
    """A run accepted, then the step code edited in the checkout."""
    wf = kit.run_workflow_dir(tmp_path / "wf")
    assert cli(capsys, "run-workflow", wf, "--case", "day1")[0] == 0
    calc = wf / "steps" / "calc.py"
    calc.write_text(calc.read_text().replace("* 2", "* 3"))
    return wf


def test_default_replay_shows_the_code_diff(edited, capsys):
    code, out, _ = cli(capsys, "replay", "day1", edited)
    assert code == 1
    assert "✗ changed  double" in out
    assert "what changed in the code since it was accepted:" in out
    assert '-    return {"twice": str(Decimal(total["sum"]) * 2)}' in out
    assert '+    return {"twice": str(Decimal(total["sum"]) * 3)}' in out


def test_stored_code_replays_the_accepted_run_after_an_edit(edited, capsys):
    code, out, err = cli(capsys, "replay", "day1", edited, "--stored-code", "--format", "json")
    assert code == 0, out + err
    doc = json.loads(out)
    outcomes = {s["step"]: s["outcome"] for s in doc["steps"]}
    assert outcomes == {"add": "same", "double": "same", "clock": "same", "bill": "same",
                        "fetch": "recorded"}
    double = next(s for s in doc["steps"] if s["step"] == "double")
    assert double["result"]["output"] == {"twice": "3.50"}  # the stored code's * 2, not * 3


def test_stored_code_diffs_against_accepted(edited, capsys):
    con = sqlite3.connect(store_path(edited))
    con.execute("UPDATE accepted SET result_json = ? WHERE step_id = 'double' AND "
                "effect_key = ''", (json.dumps({"status": "ok", "output": {"twice": "3.49"},
                                               "effects": [], "served_from": "execution"}),))
    con.commit()
    con.close()
    code, out, _ = cli(capsys, "replay", "day1", edited, "--stored-code")
    assert code == 1
    assert 'output.twice: expected "3.49", got "3.50"' in out


def test_stored_code_refuses_a_tampered_source(edited, capsys):
    con = sqlite3.connect(store_path(edited))
    con.execute("UPDATE code SET source = source || '\n# edited\n'")
    con.commit()
    con.close()
    code, out, _ = cli(capsys, "replay", "day1", edited, "--stored-code")
    assert code == 1
    assert "does not hash to the request's code hash" in out
