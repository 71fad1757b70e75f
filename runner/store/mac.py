"""Per-user MAC of accepted-result rows (issue 10, finding 8).

A repository can ship its own `.stepsmith/results.sqlite3`; without this its rows would be
reused as accepted results. Every row this user writes on this machine carries an
HMAC-SHA256 under a key kept outside any workspace, in
`$XDG_STATE_HOME/stepsmith/store.key` (default `~/.local/state/stepsmith/store.key`; 32
random bytes, directory 0700, file 0600, created on first use, never a symlink). A row whose
MAC is missing or wrong is refused loudly and never reused (db.py: ForgedRow).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
import threading
from pathlib import Path

_lock = threading.Lock()
_keys: dict[str, bytes] = {}


class KeyUnavailable(OSError):
    pass


def key_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"),
                                                             ".local", "state")
    return Path(base) / "stepsmith" / "store.key"


def load_key() -> bytes:
    path = key_path()
    with _lock:
        key = _keys.get(str(path))
        if key is None:
            key = _keys[str(path)] = _read_or_create(path)
        return key


def _read_or_create(path: Path) -> bytes:
    try:
        os.makedirs(path.parent, mode=0o700, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as fh:
                fh.write(secrets.token_bytes(32))
                fh.flush()
                os.fsync(fh.fileno())
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
                raise KeyUnavailable(f"{path}: not a regular file of this user")
            key = fh.read(65)
    except KeyUnavailable:
        raise
    except OSError as exc:
        raise KeyUnavailable(f"cannot use the store key {path}: {exc.strerror or exc} "
                             "(set XDG_STATE_HOME to a writable folder)") from exc
    if len(key) != 32:
        raise KeyUnavailable(f"{path}: not a stepsmith store key (32 bytes); remove it")
    return key


def row_mac(key: bytes, fields: tuple) -> str:
    """HMAC-SHA256 of a row's fields (length-prefixed, so no two rows share an encoding)."""
    h = hmac.new(key, digestmod=hashlib.sha256)
    for f in fields:
        b = str(f).encode("utf-8")
        h.update(len(b).to_bytes(8, "big") + b)
    return h.hexdigest()


def same(a: str | None, b: str) -> bool:
    return a is not None and hmac.compare_digest(a, b)
