"""Verdicts kept between runs, so after an edit only what the edit can change runs again.

Two kinds of entry, both keyed by a sha256 of everything the answer depends on:
- a fixture's *baseline* (did it pass on the unmutated code, and which statement lines it
  ran): keyed by the code its step can run (`generate.closure`: the imports and the functions
  reachable from the step's function, with their line numbers, since coverage names lines),
  the fixture's bytes and the step's configuration;
- one fixture's verdict on one *mutant* (noticed it, passed, hit a limit): keyed by the same
  closure of the mutated text (without line numbers: a verdict names none), the fixture's
  bytes and the configuration.
Both keys also hold stepsmith's code fingerprint (runner/codeprint.py), the harness identity
and the active limits. An edit to one step changes only the closures that contain it: the
other steps' fixtures and mutants are answered from here.

The store is one SQLite file in the user's cache folder (`$XDG_CACHE_HOME/stepsmith/
mutants.sqlite3`), never in a workspace: a cloned folder cannot ship verdicts.
`STEPSMITH_NO_CACHE=1` (or `mutants --no-cache`) turns it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from pathlib import Path

FORMAT = 1


def enabled() -> bool:
    return not os.environ.get("STEPSMITH_NO_CACHE")


def path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "stepsmith" / "mutants.sqlite3"


def key(*parts: object) -> str:
    """sha256 over the parts, each as canonical JSON (str for anything JSON cannot carry)."""
    return key_after(prefix(), *parts)


def prefix(*parts: object):
    """The hash of `key`'s first parts, for `key_after`: a run's keys share their first parts
    (the salt, a step's configuration), worked out once rather than for every verdict."""
    return _fed(hashlib.sha256(str(FORMAT).encode()), parts)


def key_after(first, *parts: object) -> str:
    """`key(*a, *parts)` given `first = prefix(*a)` (which it leaves as it was)."""
    return _fed(first.copy(), parts).hexdigest()


def _fed(h, parts):
    for part in parts:
        h.update(b"\0")
        if isinstance(part, bytes):
            h.update(hashlib.sha256(part).digest())
        else:
            h.update(json.dumps(part, sort_keys=True, default=str).encode("utf-8",
                                                                          "surrogatepass"))
    return h


class Cache:
    """get/put of JSON values by key; a store that cannot be opened is a cache that misses.
    One run's reads can be asked for at once (`prefetch`); its writes are kept in memory
    (read back from there) and written in one transaction by `flush` or `close`: a
    statement per verdict was most of a refresh's own time in the editor."""

    def __init__(self, where: Path | None = None, *, on: bool = True) -> None:
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._known: dict[str, dict | None] = {}  # read (None: not stored) or written
        self._pending: dict[str, str] = {}  # written, not yet stored: key -> JSON
        self._put: set[str] = set()  # every key this run wrote
        if not on:
            return
        where = where or path()
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(where), timeout=5.0, check_same_thread=False,
                                 isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            # a cache: a verdict lost to a power cut is judged again; no fsync per verdict
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("CREATE TABLE IF NOT EXISTS verdict (key TEXT PRIMARY KEY, value TEXT)")
            self._db = db
        except (OSError, sqlite3.Error):
            self._db = None

    @property
    def on(self) -> bool:
        return self._db is not None

    @staticmethod
    def _decoded(raw: str) -> dict | None:
        try:
            value = json.loads(raw)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def get(self, k: str) -> dict | None:
        if self._db is None:
            return None
        with self._lock:
            if k in self._known:
                return self._known[k]
            try:
                row = self._db.execute("SELECT value FROM verdict WHERE key = ?",
                                       (k,)).fetchone()
            except sqlite3.Error:
                return None
        return None if row is None else self._decoded(row[0])

    def prefetch(self, keys) -> None:
        """Read these keys' values now, in a few statements: their `get`s ask the store
        nothing more."""
        if self._db is None:
            return
        todo = sorted(set(keys) - set(self._known))
        with self._lock:
            for at in range(0, len(todo), 500):  # (SQLite's bound on parameters: 999)
                part = todo[at:at + 500]
                try:
                    rows = self._db.execute(
                        "SELECT key, value FROM verdict WHERE key IN (%s)"
                        % ",".join("?" * len(part)), part).fetchall()
                except sqlite3.Error:
                    return
                found = {k: self._decoded(v) for k, v in rows}
                for k in part:
                    self._known.setdefault(k, found.get(k))

    def put(self, k: str, value: dict) -> None:
        if self._db is None:
            return
        raw = json.dumps(value)
        with self._lock:
            self._pending[k] = raw
            self._known[k] = self._decoded(raw)
            self._put.add(k)

    def mine(self, k: str) -> bool:
        """Whether this run wrote the key's value (a verdict it made, not one it was given)."""
        with self._lock:
            return k in self._put

    def flush(self) -> None:
        """Store what was put since the last flush, in one transaction."""
        with self._lock:
            if self._db is None or not self._pending:
                return
            rows, self._pending = list(self._pending.items()), {}
            try:
                with self._db:
                    self._db.execute("BEGIN")
                    self._db.executemany(
                        "INSERT OR REPLACE INTO verdict (key, value) VALUES (?, ?)", rows)
            except sqlite3.Error:
                pass

    def close(self) -> None:
        self.flush()
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
