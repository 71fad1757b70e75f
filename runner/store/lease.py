"""The run lease: at most one process executes a run (workflow, version, run id) at a time.

The engine's rule: a run is held by one owner under a lease (owner, attempt, expiry). A second
`run-workflow` on the same run id waits for the holder (``--wait``) or refuses, naming the
holder and since when. A lease expires when its holder stops renewing it (renewed before each
step) or, on the same host, as soon as the holder's process is gone (a ``kill -9``): the next
process takes the run over with ``attempt + 1``, resuming from the accepted results.

Kept in its own SQLite file beside the results (``.stepsmith/leases.sqlite3``): a lease is
coordination, not a result, so it is never part of the accepted store's rows or its MAC.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from stepsmith.runner import safeio
from stepsmith.runner.errors import Refused
from stepsmith.runner.store.db import STORE_DIR

LEASE_FILE = "leases.sqlite3"
DEFAULT_TTL = 60.0  # seconds without renewal after which a holder is presumed gone

_SCHEMA = """
CREATE TABLE IF NOT EXISTS lease (
    workflow TEXT NOT NULL,
    version INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    attempt INTEGER NOT NULL,
    acquired_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    PRIMARY KEY (workflow, version, run_id)
);
"""


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Holder:
    owner: str
    host: str
    pid: int
    attempt: int
    acquired_at: float
    expires_at: float

    def describe(self) -> str:
        return (f"process {self.pid} on {self.host} (attempt {self.attempt}) since "
                f"{_iso(self.acquired_at)}; its lease expires at {_iso(self.expires_at)} "
                "unless renewed")


class LeaseHeld(Refused):
    """Another live process holds the run (the CLI exits 1 naming it)."""

    def __init__(self, run_id: str, holder: Holder, waited: float):
        self.run_id, self.holder = run_id, holder
        waited_text = f" (waited {waited:.1f}s)" if waited > 0 else ""
        super().__init__(
            f"run {run_id!r} is being executed by {holder.describe()}{waited_text}. "
            "Wait for it (--wait SECONDS) or use another --run-id")


def _alive(host: str, pid: int) -> bool:
    """False only when certain: the holder ran on this host and its process is gone."""
    if host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RunLease:
    """Acquire with :meth:`acquire` (raises LeaseHeld), renew before each step, release at
    the end (also when the run fails). `attempt` tells how many processes took this run."""

    def __init__(self, workflow_dir: str | Path, workflow: str, version: int, run_id: str, *,
                 ttl: float | None = None):
        self.dir = Path(workflow_dir)
        self.path = self.dir / STORE_DIR / LEASE_FILE
        self.key = (workflow, int(version), run_id)
        self.ttl = float(ttl if ttl is not None else
                         os.environ.get("STEPSMITH_RUN_LEASE_SECONDS", DEFAULT_TTL))
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        self.attempt = 0
        self.took_over: Holder | None = None
        self._conn: sqlite3.Connection | None = None

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            # a cloned folder's `.stepsmith -> /elsewhere` must not move the lease either
            safeio.safe_dir(self.dir, STORE_DIR)
            for suffix in ("", "-wal", "-shm", "-journal"):
                safeio.refuse_symlink(f"{self.path}{suffix}")
            c = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            c.execute("PRAGMA busy_timeout = 30000")
            c.executescript(_SCHEMA)
            self._conn = c
        return self._conn

    def _try(self) -> Holder | None:
        """Take the lease if free/expired/dead; returns the live holder otherwise."""
        c = self._db()
        now = time.time()
        c.execute("BEGIN IMMEDIATE")
        try:
            row = c.execute("SELECT owner, host, pid, attempt, acquired_at, expires_at FROM "
                            "lease WHERE workflow=? AND version=? AND run_id=?",
                            self.key).fetchone()
            holder = Holder(*row) if row else None
            if holder is not None and holder.owner != self.owner and holder.expires_at > now \
                    and _alive(holder.host, holder.pid):
                c.execute("ROLLBACK")
                return holder
            self.attempt = (holder.attempt + 1) if holder else 1
            self.took_over = holder if holder and holder.owner != self.owner else None
            c.execute("INSERT OR REPLACE INTO lease VALUES (?,?,?,?,?,?,?,?,?)",
                      (*self.key, self.owner, socket.gethostname(), os.getpid(), self.attempt,
                       now, now + self.ttl))
            c.execute("COMMIT")
            return None
        except BaseException:
            c.execute("ROLLBACK")
            raise

    def acquire(self, wait: float = 0.0) -> None:
        t0 = time.monotonic()
        while True:
            holder = self._try()
            if holder is None:
                return
            waited = time.monotonic() - t0
            if waited >= wait:
                raise LeaseHeld(self.key[2], holder, wait)
            time.sleep(min(0.25, max(0.01, wait - waited)))

    def renew(self) -> None:
        c = self._db()
        n = c.execute("UPDATE lease SET expires_at=? WHERE workflow=? AND version=? AND "
                      "run_id=? AND owner=?", (time.time() + self.ttl, *self.key, self.owner))
        if n.rowcount != 1:  # expired and taken over while a step ran: stop, do not race
            row = c.execute("SELECT owner, host, pid, attempt, acquired_at, expires_at FROM "
                            "lease WHERE workflow=? AND version=? AND run_id=?",
                            self.key).fetchone()
            if row:
                raise LeaseHeld(self.key[2], Holder(*row), 0.0)
            self._try()

    def release(self) -> None:
        if self._conn is None:
            return
        try:
            self._conn.execute("DELETE FROM lease WHERE workflow=? AND version=? AND run_id=? "
                               "AND owner=?", (*self.key, self.owner))
        finally:
            self._conn.close()
            self._conn = None
