"""Issue 10, finding 8: accepted rows carry a MAC under a per-user key kept outside the
workspace; a row failing it (a results.sqlite3 shipped with a repository, or edited) is
reported loudly and never reused."""

import json
import shutil
import sqlite3

import pytest
from stepsmith.runner.cli import main
from stepsmith.runner.store import ResultStore, RuntimeIdentity, build_request
from stepsmith.runner.store import mac as store_mac
from stepsmith.runner.store.db import ForgedRow

IDENT = RuntimeIdentity("1", "3.11.9", "a" * 64)


def req():
    return build_request(source="def f(a):\n    return a\n", function="f",
                         inputs={"a": "1.50"}, evaluation_time="2026-12-01T07:00:00+00:00",
                         seed=None)


def accept(store, result=None, effects=()):
    return store.accept(workflow="demo", version=1, run_id="r1", step_id="s", request=req(),
                        result=result or {"status": "ok", "output": 1}, effects=effects)


@pytest.fixture
def state(tmp_path, monkeypatch):
    home = tmp_path / "state-mine"
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


def test_key_lives_outside_the_workspace_and_is_private(tmp_path, state):
    wf = tmp_path / "wf"
    with ResultStore.for_workflow(wf, identity=IDENT) as st:
        accept(st)
    key = state / "stepsmith" / "store.key"
    assert key.is_file() and (key.stat().st_mode & 0o777) == 0o600
    assert (key.parent.stat().st_mode & 0o777) == 0o700
    assert not any(p.name == "store.key" for p in wf.rglob("*"))
    with ResultStore.for_workflow(wf, identity=IDENT) as st:
        assert st.lookup("demo", 1, "r1", "s", req()).result == {"status": "ok", "output": 1}


def test_edited_row_is_refused_loudly(tmp_path, state):
    wf = tmp_path / "wf"
    with ResultStore.for_workflow(wf, identity=IDENT) as st:
        accept(st, effects=[{"effect": "pay", "key": "k", "payload": {}}])
    con = sqlite3.connect(wf / ".stepsmith" / "results.sqlite3")
    con.execute("UPDATE accepted SET result_json = ? WHERE effect_key = ''",
                (json.dumps({"status": "ok", "output": 1000000}),))
    con.commit()
    con.close()
    with ResultStore.for_workflow(wf, identity=IDENT) as st:
        with pytest.raises(ForgedRow, match="FORGED"):
            st.lookup("demo", 1, "r1", "s", req())
        with pytest.raises(ForgedRow):  # nor is it taken as the existing acceptance
            accept(st)
        # replay reads rows to compare them with a re-execution, never to reuse them: it
        # sees the flag (and the edited row differs from the recomputation anyway)
        assert [r.authentic for r in st.run_rows("demo", 1, "r1", effect_rows=True)] == [
            False, True]


def test_a_store_written_under_another_key_is_never_reused(tmp_path, monkeypatch):
    wf = tmp_path / "wf"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "someone-else"))
    with ResultStore.for_workflow(wf, identity=IDENT) as st:
        accept(st)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "me"))
    with ResultStore.for_workflow(wf, identity=IDENT) as st:
        with pytest.raises(ForgedRow):
            st.lookup("demo", 1, "r1", "s", req())


def test_rows_without_a_mac_are_refused(tmp_path, state):
    wf = tmp_path / "wf"
    with ResultStore.for_workflow(wf, identity=IDENT) as st:
        accept(st)
    con = sqlite3.connect(wf / ".stepsmith" / "results.sqlite3")
    con.execute("DELETE FROM row_mac")
    con.commit()
    con.close()
    with ResultStore.for_workflow(wf, identity=IDENT) as st:
        with pytest.raises(ForgedRow):
            st.lookup("demo", 1, "r1", "s", req())


def test_row_mac_is_unambiguous():
    k = b"k" * 32
    assert store_mac.row_mac(k, ("ab", "c")) != store_mac.row_mac(k, ("a", "bc"))


@pytest.mark.usefixtures("sandbox")
def test_run_workflow_with_a_shipped_results_store(tmp_path, kit, capsys, monkeypatch):
    """A repository ships `.stepsmith/results.sqlite3` whose accepted `add` claims 999: the
    run stops loudly, and nothing of the shipped row reaches the output."""
    monkeypatch.chdir(tmp_path)
    attacker = kit.run_workflow_dir(tmp_path / "attacker")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "attacker-state"))
    assert main(["run-workflow", str(attacker), "--case", "day1"]) == 0
    db = attacker / ".stepsmith" / "results.sqlite3"
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    row = con.execute("SELECT result_json FROM accepted WHERE step_id='add' AND effect_key=''"
                      ).fetchone()
    forged = json.loads(row[0])
    forged["output"] = {"sum": "999.99-forged"}
    con.execute("UPDATE accepted SET result_json=? WHERE step_id='add' AND effect_key=''",
                (json.dumps(forged),))
    con.commit()
    con.close()
    victim = tmp_path / "victim"
    shutil.copytree(attacker, victim)  # the clone, with its shipped store
    capsys.readouterr()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "victim-state"))
    code = main(["run-workflow", str(victim), "--case", "day1"])
    out, err = capsys.readouterr()
    assert code != 0
    assert "FORGED" in out + err, out + err
    assert "999.99-forged" not in out + err


def test_the_runtime_identity_is_the_sandboxes():
    """One function makes the runtime identity (issue 21: no accepted spellings, no fallback
    hashing a different file set)."""
    from stepsmith.runner import sandbox
    from stepsmith.runner.store import identity

    assert identity.runtime_identity().to_json() == sandbox.runtime_identity()
    assert not hasattr(identity, "_from_mapping") and not hasattr(identity, "_source_hash")
