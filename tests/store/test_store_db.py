"""The accepted-results store on its own: real SQLite, no sandbox needed."""

import hashlib
import json
import sqlite3

import pytest
from stepsmith.runner.store import (
    IdentityMismatch,
    RequestMismatch,
    ResultStore,
    RuntimeIdentity,
    StoreError,
    build_request,
    canonical_json,
    request_sha256,
    runtime_identity,
)
from stepsmith.runner.store.canonical import request_differences

IDENT = RuntimeIdentity("1", "3.11.9", "a" * 64)
OTHER = RuntimeIdentity("1", "3.11.9", "b" * 64)


def req(source="def f(a):\n    return a\n", inputs=None, at="2026-12-01T07:00:00+00:00", seed=None):
    return build_request(source=source, function="f", inputs=inputs or {"a": "1.50"},
                         evaluation_time=at, seed=seed)


def accept(store, step="s", request=None, result=None, effects=(), run="r1"):
    return store.accept(workflow="demo", version=1, run_id=run, step_id=step,
                        request=request or req(), result=result or {"status": "ok", "output": 1},
                        effects=effects)


def test_request_hash_is_sha256_of_canonical_json():
    r = req(inputs={"b": "é", "a": [1, 2]})
    text = ('{"code_hash":"' + r["code_hash"] + '","evaluation_time":"2026-12-01T07:00:00+00:00",'
            '"function":"f","inputs":{"a":[1,2],"b":"é"},"seed":null}')
    assert canonical_json(r) == text
    assert request_sha256(r) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert r["code_hash"] == hashlib.sha256(b"def f(a):\n    return a\n").hexdigest()
    # key order of the inputs does not matter; values do
    assert request_sha256(req(inputs={"a": [1, 2], "b": "é"})) == request_sha256(r)
    assert request_sha256(req(inputs={"a": [2, 1], "b": "é"})) != request_sha256(r)


def test_schema_wal_and_unique_constraint(tmp_path):
    path = tmp_path / ".stepsmith" / "results.sqlite3"
    with ResultStore(path, identity=IDENT) as st:
        accept(st)
    assert (tmp_path / ".stepsmith" / ".gitignore").read_text().strip().endswith("*")
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("SELECT version FROM schema_version").fetchall() == [(1,)]
    row = con.execute("SELECT workflow, version, run_id, step_id, effect_key FROM accepted"
                      ).fetchone()
    assert row == ("demo", 1, "r1", "s", "")
    with pytest.raises(sqlite3.IntegrityError):
        con.execute("INSERT INTO accepted (workflow, version, run_id, step_id, effect_key, "
                    "request_sha256, request_json, result_json, harness_version, python_version,"
                    " harness_source_sha256, accepted_at) SELECT workflow, version, run_id, "
                    "step_id, effect_key, request_sha256, request_json, result_json, "
                    "harness_version, python_version, harness_source_sha256, accepted_at "
                    "FROM accepted")
    con.close()


def test_same_request_returns_stored_result(tmp_path):
    with ResultStore.for_workflow(tmp_path, identity=IDENT) as st:
        first = accept(st, result={"status": "ok", "output": {"n": 1}})
        assert not first.reused
        again = accept(st, result={"status": "ok", "output": {"n": 999}})  # would differ
        assert again.reused and again.result == {"status": "ok", "output": {"n": 1}}
        assert st.lookup("demo", 1, "r1", "s", req()).result["output"] == {"n": 1}
        assert st.lookup("demo", 1, "r2", "s", req()) is None
        assert len(st.run_rows("demo", 1, "r1")) == 1


def test_different_request_same_identity_fails_loudly(tmp_path):
    with ResultStore.for_workflow(tmp_path, identity=IDENT) as st:
        first = accept(st)
        changed = req(inputs={"a": "2.00"})
        with pytest.raises(RequestMismatch) as ei:
            accept(st, request=changed)
        e = ei.value
        assert e.stored_sha256 == first.request_sha256
        assert e.fresh_sha256 == request_sha256(changed)
        assert e.stored_sha256[:12] + "…" in str(e) and e.fresh_sha256[:12] + "…" in str(e)
        assert e.stored_sha256 not in str(e)  # abbreviated (issue 20); the full one is on e
        assert "inputs differ (a)" in str(e)
        with pytest.raises(RequestMismatch, match="the step's code changed"):
            st.lookup("demo", 1, "r1", "s", req(source="def f(a):\n    return 2\n"))
        assert len(st.run_rows("demo", 1, "r1")) == 1  # nothing was overwritten


def test_request_differences_name_the_fields():
    a, b = req(), req(at="2026-12-02T07:00:00+00:00", seed=3)
    assert request_differences(a, b) == [
        ('evaluation_time differs (stored "2026-12-01T07:00:00+00:00", now '
         '"2026-12-02T07:00:00+00:00")'),
        "seed differs (stored null, now 3)",
    ]


def test_different_runtime_identity_stops_and_does_not_overwrite(tmp_path):
    with ResultStore.for_workflow(tmp_path, identity=IDENT) as st:
        accept(st)
    with ResultStore.for_workflow(tmp_path, identity=OTHER) as st:
        with pytest.raises(IdentityMismatch) as ei:
            accept(st)
        assert "harness_source_sha256: stored " + "a" * 12 + "…," in str(ei.value)
        with pytest.raises(IdentityMismatch):
            st.lookup("demo", 1, "r1", "s", req())
        rows = st.run_rows("demo", 1, "r1")
        assert [r.identity for r in rows] == [IDENT]


def test_effect_intents_get_their_own_rows_in_the_same_transaction(tmp_path):
    intents = [{"effect": "draft_bill", "key": "INV-1", "payload": {"invoice_id": "INV-1"}},
               {"effect": "draft_bill", "key": 7, "payload": {"invoice_id": 7}}]
    with ResultStore.for_workflow(tmp_path, identity=IDENT) as st:
        accept(st, result={"status": "ok", "output": 2, "effects": intents}, effects=intents)
        rows = st.run_rows("demo", 1, "r1", effect_rows=True)
        assert [r.effect_key for r in rows] == ["", "draft_bill:INV-1", "draft_bill:7"]
        assert rows[1].result == intents[0]
        assert len({r.request_sha256 for r in rows}) == 1
        bad = [intents[0], {**intents[0], "payload": {"invoice_id": "INV-1", "x": 1}}]
        with pytest.raises(StoreError, match="share the effect key"):
            accept(st, step="t", effects=bad)
        assert st.get("demo", 1, "r1", "t") is None


def test_unsupported_schema_version_is_refused(tmp_path):
    path = tmp_path / "s.sqlite3"
    ResultStore(path, identity=IDENT).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE schema_version SET version = 99")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="schema version 99"):
        ResultStore(path, identity=IDENT)


def test_not_a_database_is_a_clear_error(tmp_path):
    path = tmp_path / "s.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot open the store"):
        ResultStore(path, identity=IDENT)


def test_runtime_identity_has_all_three_parts():
    ident = runtime_identity()
    assert ident.harness_version and ident.python_version
    assert len(ident.harness_source_sha256) == 64
    json.dumps(ident.to_json())


def test_unwritable_location_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match="cannot create"):
        ResultStore(blocker / ".stepsmith" / "results.sqlite3", identity=IDENT)
    (tmp_path / "dir.sqlite3").mkdir()
    with pytest.raises(StoreError, match="cannot open the store"):
        ResultStore(tmp_path / "dir.sqlite3", identity=IDENT)


def test_a_new_version_is_a_new_identity(tmp_path):
    """Bumping `version:` and running the same run id again stores new rows beside the old
    version's (the version is part of the identity), never a raw IntegrityError."""
    with ResultStore.for_workflow(tmp_path, identity=IDENT) as st:
        accept(st, result={"status": "ok", "output": {"v": 1}},
               effects=[{"effect": "draft_bill", "key": "k1", "payload": {"id": "k1"}}])
        second = st.accept(workflow="demo", version=2, run_id="r1", step_id="s",
                           request=req(inputs={"a": "2"}), result={"status": "ok",
                                                                   "output": {"v": 2}},
                           effects=[{"effect": "draft_bill", "key": "k1",
                                     "payload": {"id": "k1"}}])
        assert not second.reused
        assert st.lookup("demo", 1, "r1", "s", req()).result["output"] == {"v": 1}
        assert st.lookup("demo", 2, "r1", "s", req(inputs={"a": "2"})).result["output"] == {
            "v": 2}
        assert [len(st.run_rows("demo", v, "r1", effect_rows=True)) for v in (1, 2)] == [2, 2]
