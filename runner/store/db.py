"""The accepted-results store: SQLite at ``<workflow>/.stepsmith/results.sqlite3``.

One row per accepted step result (``effect_key = ""``) plus one row per effect intent the step
recorded (``effect_key = "<effect>:<key>"``), all written in ONE ``BEGIN IMMEDIATE``
transaction, so a kill at any moment leaves either the whole acceptance or none of it.
WAL journal, ``synchronous=FULL`` (accepted means durable), ``busy_timeout`` so concurrent
runs queue instead of failing. Rows are immutable: nothing here updates or deletes.

Identity of a row: (workflow, version, run_id, step_id, effect_key) — UNIQUE. Accepting the
same identity again:
  * same request hash and same runtime identity → the stored result is returned (reused);
  * a different request hash → :class:`RequestMismatch` (loud; both hashes, what differs);
  * a different runtime identity → :class:`IdentityMismatch` (stop; never reuse, never overwrite).

Every row carries an HMAC under this user's key outside the workspace (mac.py, table
``row_mac``); a row without a valid one (a store shipped with a repository) is
:class:`ForgedRow`: reported loudly, never reused.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from stepsmith.runner import safeio
from stepsmith.runner.errors import Refused
from stepsmith.runner.store import mac
from stepsmith.runner.store.canonical import (
    canonical_json,
    request_differences,
    request_sha256,
)
from stepsmith.runner.store.identity import RuntimeIdentity, runtime_identity
from stepsmith.runner.store.identity import _short as short

SCHEMA_VERSION = 1
STORE_DIR = ".stepsmith"
STORE_FILE = "results.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS accepted (
    id INTEGER PRIMARY KEY,
    workflow TEXT NOT NULL,
    version INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    step_id TEXT NOT NULL,
    effect_key TEXT NOT NULL DEFAULT '',
    request_sha256 TEXT NOT NULL CHECK (length(request_sha256) = 64),
    request_json TEXT NOT NULL,
    result_json TEXT NOT NULL,
    harness_version TEXT NOT NULL,
    python_version TEXT NOT NULL,
    harness_source_sha256 TEXT NOT NULL,
    accepted_at TEXT NOT NULL,
    UNIQUE (workflow, version, run_id, step_id, effect_key)
);
CREATE TABLE IF NOT EXISTS row_mac (
    id INTEGER PRIMARY KEY REFERENCES accepted (id),
    mac TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS code (
    sha256 TEXT PRIMARY KEY,
    filename TEXT NOT NULL,
    source TEXT NOT NULL
);
"""


class StoreError(Refused):
    """Anything the store refuses (the CLI exits 1)."""


def _short(sha: str) -> str:
    return short(sha)


class RequestMismatch(StoreError):
    def __init__(self, *, run_id: str, step_id: str, effect_key: str, stored_sha256: str,
                 fresh_sha256: str, differences: list[str]):
        self.run_id, self.step_id, self.effect_key = run_id, step_id, effect_key
        self.stored_sha256, self.fresh_sha256 = stored_sha256, fresh_sha256
        self.differences = differences
        self.code_changed = "the step's code changed" in differences
        what = "; ".join(differences) or "the request differs"
        super().__init__(
            f"run {run_id!r}, step {step_id!r}: an accepted result exists for a DIFFERENT request "
            f"(stored request sha256 {_short(stored_sha256)}, this request "
            f"{_short(fresh_sha256)}): {what}. "
            "Accepted results are immutable; start a new run (--run-id) to run the changed step."
        )


class ForgedRow(StoreError):
    """A row this user did not write on this machine (no MAC, or a wrong one): never reused."""

    def __init__(self, path, row):
        self.row = row
        super().__init__(
            f"FORGED OR FOREIGN RESULT in {path}: the accepted row for run {row[3]!r}, step "
            f"{row[4]!r}{' (' + row[5] + ')' if row[5] else ''} carries no valid MAC of this "
            "user (it was not written by stepsmith for you on this machine, e.g. it was shipped "
            "with the repository). It is never reused. Delete the store (rm -r .stepsmith/"
            "results.sqlite3*) or start a new run (--run-id).")


class IdentityMismatch(StoreError):
    def __init__(self, *, run_id: str, step_id: str, stored: RuntimeIdentity,
                 current: RuntimeIdentity):
        self.run_id, self.step_id, self.stored, self.current = run_id, step_id, stored, current
        self.reasons = stored.differences(current)
        super().__init__(
            f"run {run_id!r}, step {step_id!r}: the accepted result was produced by a different "
            f"runtime ({'; '.join(self.reasons)}). It is not reused and not overwritten; "
            "start a new run (--run-id) with this runtime."
        )


@dataclass
class Accepted:
    workflow: str
    version: int
    run_id: str
    step_id: str
    effect_key: str
    request_sha256: str
    request: dict
    result: Any
    identity: RuntimeIdentity
    accepted_at: str
    rowid: int = 0
    reused: bool = False  # True when this came from the store rather than this acceptance
    #: the row carries this user's valid MAC (mac.py); only such a row is ever reused
    authentic: bool = True
    raw: tuple = ()


def effect_key_of(intent: dict) -> str:
    key = intent.get("key")
    text = key if isinstance(key, str) else canonical_json(key)
    return f"{intent.get('effect')}:{text}"


def store_path(workflow_dir: str | Path) -> Path:
    return Path(workflow_dir) / STORE_DIR / STORE_FILE


class ResultStore:
    def __init__(self, path: str | Path, *, identity: RuntimeIdentity | None = None,
                 busy_timeout: float = 60.0):
        self.path = Path(path)
        self.identity = identity or runtime_identity()
        in_workflow = self.path.parent.name == STORE_DIR
        try:
            if in_workflow:  # a cloned folder's `.stepsmith -> /elsewhere` must not move the store
                safeio.safe_dir(self.path.parent.parent, STORE_DIR)
                for suffix in ("", "-wal", "-shm", "-journal"):
                    safeio.refuse_symlink(f"{self.path}{suffix}")
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create {self.path.parent}: {exc.strerror or exc}") from exc
        ignore = self.path.parent / ".gitignore"
        if in_workflow and not os.path.lexists(ignore):
            try:  # never through a symlink, never over an existing file
                fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                             | os.O_CLOEXEC, 0o644)
                with os.fdopen(fd, "w") as fh:
                    fh.write("# local stepsmith state: never commit\n*\n")
            except OSError:
                pass
        self._busy_ms = int(busy_timeout * 1000)
        try:
            self.conn = sqlite3.connect(str(self.path), timeout=busy_timeout,
                                        isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the store {self.path}: {exc}") from exc
        self._setup()

    @classmethod
    def for_workflow(cls, workflow_dir: str | Path, **kw) -> ResultStore:
        return cls(store_path(workflow_dir), **kw)

    # -- setup -------------------------------------------------------------------------
    def _setup(self) -> None:
        c = self.conn
        c.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
        deadline = time.monotonic() + self._busy_ms / 1000
        while True:  # switching to WAL can report "locked" while another process sets up
            try:
                mode = c.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                break
            except sqlite3.DatabaseError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    self.conn.close()
                    raise StoreError(f"cannot open the store {self.path}: {exc}") from exc
                time.sleep(0.05)
        if str(mode).lower() != "wal":
            raise StoreError(f"cannot put the store {self.path} in WAL mode (got {mode})")
        c.execute("PRAGMA synchronous = FULL")
        try:
            c.execute("BEGIN IMMEDIATE")
            try:
                for stmt in filter(None, (s.strip() for s in _SCHEMA.split(";"))):
                    c.execute(stmt)
                rows = c.execute("SELECT version FROM schema_version").fetchall()
                if not rows:
                    c.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
                elif len(rows) != 1 or rows[0][0] != SCHEMA_VERSION:
                    raise StoreError(
                        f"the store {self.path} has schema version {rows[0][0] if rows else '?'}; "
                        f"this stepsmith understands version {SCHEMA_VERSION}"
                    )
                c.execute("COMMIT")
            except BaseException:
                c.execute("ROLLBACK")
                raise
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise StoreError(f"cannot open the store {self.path}: {exc}") from exc
        except StoreError:
            self.conn.close()
            raise

    def close(self) -> None:
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- reading ---------------------------------------------------------------------------
    _COLS = ("rowid, workflow, version, run_id, step_id, effect_key, request_sha256, "
             "request_json, result_json, harness_version, python_version, "
             "harness_source_sha256, accepted_at, "
             "(SELECT mac FROM row_mac WHERE row_mac.id = accepted.id)")

    def _key(self) -> bytes:
        try:
            return mac.load_key()
        except mac.KeyUnavailable as exc:
            raise StoreError(str(exc)) from exc

    def _row(self, r, reused=True) -> Accepted:
        return Accepted(
            workflow=r[1], version=r[2], run_id=r[3], step_id=r[4], effect_key=r[5],
            request_sha256=r[6], request=json.loads(r[7]), result=json.loads(r[8]),
            identity=RuntimeIdentity(r[9], r[10], r[11]), accepted_at=r[12], rowid=r[0],
            reused=reused,
            authentic=mac.same(r[13], mac.row_mac(self._key(), tuple(r[1:13]))),
            raw=tuple(r[:13]),
        )

    def get(self, workflow: str, version: int, run_id: str, step_id: str,
            effect_key: str = "") -> Accepted | None:
        r = self.conn.execute(
            f"SELECT {self._COLS} FROM accepted WHERE workflow=? AND version=? AND run_id=? "
            "AND step_id=? AND effect_key=?",
            (workflow, version, run_id, step_id, effect_key),
        ).fetchone()
        return self._row(r) if r else None

    def run_rows(self, workflow: str, version: int, run_id: str,
                 effect_rows: bool = False) -> list[Accepted]:
        sql = (f"SELECT {self._COLS} FROM accepted WHERE workflow=? AND version=? AND run_id=?"
               + ("" if effect_rows else " AND effect_key=''") + " ORDER BY rowid")
        return [self._row(r) for r in self.conn.execute(sql, (workflow, version, run_id))]

    def runs(self, workflow: str | None = None) -> list[tuple[str, int, str, int]]:
        """(workflow, version, run_id, number of accepted steps)."""
        sql = ("SELECT workflow, version, run_id, count(*) FROM accepted WHERE effect_key='' "
               + ("AND workflow=? " if workflow else "")
               + "GROUP BY workflow, version, run_id ORDER BY min(rowid)")
        return [tuple(r) for r in self.conn.execute(sql, (workflow,) if workflow else ())]

    def code_source(self, sha256: str) -> tuple[str, str] | None:
        r = self.conn.execute("SELECT filename, source FROM code WHERE sha256=?",
                              (sha256,)).fetchone()
        return (r[0], r[1]) if r else None

    # -- checking ----------------------------------------------------------------------
    def verify(self, stored: Accepted, request: dict) -> Accepted:
        """Raise unless `stored` may be reused for `request` by this runtime."""
        if stored.identity != self.identity:  # never reused either way; says what differs
            raise IdentityMismatch(run_id=stored.run_id, step_id=stored.step_id,
                                   stored=stored.identity, current=self.identity)
        if not stored.authentic:
            raise ForgedRow(self.path, stored.raw)
        fresh = request_sha256(request)
        if fresh != stored.request_sha256:
            raise RequestMismatch(
                run_id=stored.run_id, step_id=stored.step_id, effect_key=stored.effect_key,
                stored_sha256=stored.request_sha256, fresh_sha256=fresh,
                differences=request_differences(stored.request, request),
            )
        return stored

    def lookup(self, workflow: str, version: int, run_id: str, step_id: str,
               request: dict) -> Accepted | None:
        """The stored result for this step of this run, verified against `request`, or None."""
        stored = self.get(workflow, version, run_id, step_id)
        return None if stored is None else self.verify(stored, request)

    # -- accepting ---------------------------------------------------------------------
    def accept(self, *, workflow: str, version: int, run_id: str, step_id: str,
               request: dict, result: Any, effects: Iterable[dict] = (),
               source: str | None = None, filename: str = "") -> Accepted:
        """Accept `result` for this step of this run in one transaction.

        If another process accepted this step first, its row is verified against `request`
        and returned (``reused=True``); nothing is written.
        """
        sha = request_sha256(request)
        request_json = canonical_json(request)
        result_json = canonical_json(result)
        ident = self.identity
        now = datetime.now(UTC).isoformat(timespec="microseconds")
        intents = list(effects)
        by_key: dict[str, str] = {}
        for intent in intents:
            k = effect_key_of(intent)
            text = canonical_json(intent)
            if k in by_key and by_key[k] != text:
                raise StoreError(
                    f"run {run_id!r}, step {step_id!r}: two different intents share the effect "
                    f"key {k!r}; an effect key must identify one intent"
                )
            by_key[k] = text
        c = self.conn
        try:
            c.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"the store {self.path} is busy: {exc}") from exc
        try:
            existing = self.get(workflow, version, run_id, step_id)
            if existing is not None:
                c.execute("ROLLBACK")
                return self.verify(existing, request)
            values = (ident.harness_version, ident.python_version, ident.harness_source_sha256,
                      now)
            cur = c.execute(
                "INSERT INTO accepted (workflow, version, run_id, step_id, effect_key, "
                "request_sha256, request_json, result_json, harness_version, python_version, "
                "harness_source_sha256, accepted_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (workflow, version, run_id, step_id, "", sha, request_json, result_json) + values,
            )
            rowid = cur.lastrowid
            key = self._key()
            fields = (workflow, version, run_id, step_id, "", sha, request_json, result_json,
                      *values)
            c.execute("INSERT INTO row_mac (id, mac) VALUES (?, ?)",
                      (rowid, mac.row_mac(key, fields)))
            for k, text in by_key.items():
                cur = c.execute(
                    "INSERT INTO accepted (workflow, version, run_id, step_id, effect_key, "
                    "request_sha256, request_json, result_json, harness_version, python_version, "
                    "harness_source_sha256, accepted_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    (workflow, version, run_id, step_id, k, sha, request_json, text) + values,
                )
                fields = (workflow, version, run_id, step_id, k, sha, request_json, text,
                          *values)
                c.execute("INSERT INTO row_mac (id, mac) VALUES (?, ?)",
                          (cur.lastrowid, mac.row_mac(key, fields)))
            if source is not None:
                c.execute("INSERT OR IGNORE INTO code (sha256, filename, source) VALUES (?,?,?)",
                          (request.get("code_hash"), filename, source))
            c.execute("COMMIT")
        except BaseException:
            try:
                c.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            raise
        return Accepted(workflow=workflow, version=version, run_id=run_id, step_id=step_id,
                        effect_key="", request_sha256=sha, request=json.loads(request_json),
                        result=json.loads(result_json), identity=ident, accepted_at=now,
                        rowid=rowid, reused=False)

    # -- health ------------------------------------------------------------------------
    def integrity_check(self) -> str:
        return self.conn.execute("PRAGMA integrity_check").fetchone()[0]
