"""Per-user MAC of accepted-result rows (issue 10, finding 8).

A repository can ship its own `.stepsmith/results.sqlite3`; without this its rows would be
reused as accepted results. Every row this user writes on this machine carries an
HMAC-SHA256 under this user's key, kept outside any workspace (runner/userkey.py:
`$XDG_STATE_HOME/stepsmith/store.key`, 32 random bytes, 0600, never a symlink). A row whose
MAC is missing or wrong is refused loudly and never reused (db.py: ForgedRow).
"""

from __future__ import annotations

import hashlib
import hmac

# the key is this user's, shared with the harness bundle cache (runner/userkey.py)
from stepsmith.runner.userkey import KeyUnavailable, key_path, load_key

__all__ = ["KeyUnavailable", "key_path", "load_key", "row_mac", "same"]


def row_mac(key: bytes, fields: tuple) -> str:
    """HMAC-SHA256 of a row's fields (length-prefixed, so no two rows share an encoding)."""
    h = hmac.new(key, digestmod=hashlib.sha256)
    for f in fields:
        b = str(f).encode("utf-8")
        h.update(len(b).to_bytes(8, "big") + b)
    return h.hexdigest()


def same(a: str | None, b: str) -> bool:
    return a is not None and hmac.compare_digest(a, b)
