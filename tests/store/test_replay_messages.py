"""A resumed run that hits a mismatch prints a ✗ line and the run's summary
(not only the error), and no refusal repeats two 64-hex hashes. Real sandbox, real SQLite."""

import re
import sqlite3

import pytest
from stepsmith.runner.cli import main
from stepsmith.runner.store.db import store_path

pytestmark = pytest.mark.usefixtures("sandbox")


def test_a_resumed_run_that_stops_says_so(tmp_path, kit, capsys):
    wf = kit.run_workflow_dir(tmp_path / "wf")
    assert main(["run-workflow", str(wf), "--case", "day1"]) == 0
    capsys.readouterr()
    con = sqlite3.connect(store_path(wf))
    con.execute("UPDATE accepted SET harness_source_sha256 = ? WHERE step_id = 'add'",
                ("0" * 64,))
    con.commit()
    con.close()
    code = main(["run-workflow", str(wf), "--case", "day1"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "✗ stopped" in out and "different runtime" in out
    assert re.search(r"run day1: stopped — 0 accepted, 1 refused", out), out
    assert not re.search(r"[0-9a-f]{64}", out + err), out + err
