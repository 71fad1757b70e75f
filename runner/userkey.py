"""This user's secret key, kept outside any workspace: `$XDG_STATE_HOME/stepsmith/store.key`
(default `~/.local/state/stepsmith/store.key`; 32 random bytes, directory 0700, file 0600,
created on first use; never a symlink, a file of another user or one others may read).

What this user wrote on this machine is authenticated under it: the store's accepted-result
rows (store/mac.py) and the compiled harness bundles in the cache (harness/bundle_cache.py),
each under a key of its own derived with a label (`derived`), so a MAC of one is never valid
for the other. A repository can ship a store, a shared or restored cache folder can hold
bundles: without the key neither is trusted.
"""

from __future__ import annotations

import hashlib
import hmac
import os
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


def derived(label: bytes) -> bytes:
    """The key for one use: HMAC of `label` under this user's key."""
    return hmac.new(load_key(), label, hashlib.sha256).digest()


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
                fh.write(os.urandom(32))  # secrets.token_bytes, without importing random
                fh.flush()
                os.fsync(fh.fileno())
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
                raise KeyUnavailable(f"{path}: not a regular file of this user")
            if st.st_mode & 0o077:
                raise KeyUnavailable(f"{path}: other users may read or change it (mode "
                                     f"{stat.S_IMODE(st.st_mode):04o}): chmod 600 it, or "
                                     "remove it if another user may have read it")
            key = fh.read(65)
    except KeyUnavailable:
        raise
    except OSError as exc:
        raise KeyUnavailable(f"cannot use the store key {path}: {exc.strerror or exc} "
                             "(set XDG_STATE_HOME to a writable folder)") from exc
    if len(key) != 32:
        raise KeyUnavailable(f"{path}: not a stepsmith store key (32 bytes); remove it")
    return key
