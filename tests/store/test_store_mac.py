"""Accepted rows carry a MAC under a per-user key kept outside the
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


# --------------------------------------------------------------------------- every MAC'd column
# Issue 18 item 5: a MAC that skipped `request_sha256` and `request_json` passed every test
# above (they edit `result_json` only). Each column the MAC covers is edited here on its own,
# into a value an attacker would want: one that the lookup then matches (the key columns are
# looked up by their edited values, the request by an edited request, the identity is made
# this runtime's). Each must be refused as forged, never reused.

OLD = RuntimeIdentity("0", "3.10.0", "0" * 64)
OTHER_REQ = build_request(source="def f(a):\n    return a\n", function="f",
                          inputs={"a": "999.00"}, evaluation_time="2026-12-01T07:00:00+00:00",
                          seed=None)
#: column -> (edited value, the lookup's (workflow, version, run_id, step_id), its request,
#: the identity the row is first written under)
EDITS = {
    "workflow": ("other", ("other", 1, "r1", "s"), req, IDENT),
    "version": (2, ("demo", 2, "r1", "s"), req, IDENT),
    "run_id": ("r2", ("demo", 1, "r2", "s"), req, IDENT),
    "step_id": ("t", ("demo", 1, "r1", "t"), req, IDENT),
    "effect_key": ("pay:other", ("demo", 1, "r1", "s"), req, IDENT),  # the effect's row
    "request_sha256": (store_mac.hashlib.sha256(b"x").hexdigest(), ("demo", 1, "r1", "s"),
                       req, IDENT),
    "request_json": (json.dumps(OTHER_REQ, sort_keys=True, separators=(",", ":")),
                     ("demo", 1, "r1", "s"), req, IDENT),
    "result_json": (json.dumps({"status": "ok", "output": 2}), ("demo", 1, "r1", "s"), req,
                    IDENT),
    "harness_version": (IDENT.harness_version, ("demo", 1, "r1", "s"), req,
                        RuntimeIdentity("0", IDENT.python_version, IDENT.harness_source_sha256)),
    "python_version": (IDENT.python_version, ("demo", 1, "r1", "s"), req,
                       RuntimeIdentity(IDENT.harness_version, "3.10.0",
                                       IDENT.harness_source_sha256)),
    "harness_source_sha256": (IDENT.harness_source_sha256, ("demo", 1, "r1", "s"), req,
                              RuntimeIdentity(IDENT.harness_version, IDENT.python_version,
                                              "0" * 64)),
    "accepted_at": ("2000-01-01T00:00:00.000000+00:00", ("demo", 1, "r1", "s"), req, IDENT),
}


def _mac_columns():
    from stepsmith.runner.store.db import ResultStore as RS

    cols = [c.strip() for c in RS._COLS.split("(SELECT")[0].split(",") if c.strip()]
    return cols[1:]  # rowid is the row's place, not its content


def test_the_edit_table_covers_every_stored_column():
    # a column added to the store without a tamper test here fails this
    assert _mac_columns() == list(EDITS)


@pytest.mark.parametrize("column", list(EDITS))
def test_an_edit_of_any_maced_column_is_refused(tmp_path, state, column):
    value, (wf_name, version, run_id, step), request, written_under = EDITS[column]
    wf = tmp_path / "wf"
    with ResultStore.for_workflow(wf, identity=written_under) as st:
        accept(st, effects=[{"effect": "pay", "key": "k", "payload": {}}]
               if column == "effect_key" else ())
    con = sqlite3.connect(wf / ".stepsmith" / "results.sqlite3")
    if column == "effect_key":
        con.execute("UPDATE accepted SET effect_key = ? WHERE effect_key = 'pay:k'", (value,))
    elif column == "request_json":  # the attack: a request and its hash that match another call
        con.execute("UPDATE accepted SET request_json = ?, request_sha256 = ?",
                    (value, store_mac.hashlib.sha256(value.encode()).hexdigest()))
        request = lambda: OTHER_REQ  # noqa: E731
    else:
        con.execute(f"UPDATE accepted SET {column} = ?", (value,))
    con.commit()
    con.close()
    with ResultStore.for_workflow(wf, identity=IDENT) as st:
        rows = st.run_rows(wf_name, version, run_id, effect_rows=True)
        edited = [r for r in rows if column != "effect_key" or r.effect_key == value]
        assert len(edited) == 1 and edited[0].authentic is False, (
            f"an edited {column} still carries a valid MAC")
        assert all(r.authentic for r in rows if r is not edited[0])
        if column == "effect_key":
            assert st.get(wf_name, version, run_id, step, value).authentic is False
        else:  # looked up by what the edit made it match: refused, not reused, not compared
            with pytest.raises(ForgedRow, match="FORGED"):
                st.lookup(wf_name, version, run_id, step, request())
