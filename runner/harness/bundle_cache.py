"""The compiled harness bundle kept between runs (parent side; nothing here runs in the
sandbox): what `harness.bundle()` compiles is the same for the same sources on the same
interpreter, and compiling it (~40 files) was most of `stepsmith test`'s start-up (issue 20).

An entry is named by everything the compiled parts are made from: the digest of every source
(the digest the runtime identity is made of) and the allowed modules the facades are bound
to (`inputs`), this module's FORMAT and the interpreter (its version, its bytecode magic and
its optimisation level): any change to any of them names another entry.
It lives in the user's cache folder (`$XDG_CACHE_HOME/stepsmith/harness`, mode 0700), as
Python keeps its own bytecode beside the sources: a workspace cannot ship one. Each entry
carries the sha256 of its payload; a torn, truncated or otherwise damaged one is ignored and
the bundle compiled again. Failing to write one (a read-only home) costs only the time.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from pathlib import Path

FORMAT = 1
PARTS = ("main", "facades", "trace", "validator")


def _folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "stepsmith" / "harness"


def _path(inputs: str) -> Path:
    from importlib.util import MAGIC_NUMBER

    key = hashlib.sha256(f"{FORMAT}\0{inputs}\0{sys.version}\0{sys.flags.optimize}\0"
                         .encode() + MAGIC_NUMBER).hexdigest()
    return _folder() / f"{key}.bundle"


def load(inputs: str) -> dict | None:
    """The compiled parts stored for these inputs, or None."""
    try:
        data = _path(inputs).read_bytes()
    except OSError:
        return None
    check, payload = data[:32], data[32:]
    if hashlib.sha256(payload).digest() != check:
        return None
    try:
        parts = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(parts, dict) or set(parts) != set(PARTS):
        return None
    if not all(isinstance(parts[k], bytes) for k in ("main", "facades", "trace")):
        return None
    if parts["validator"] is not None and not isinstance(parts["validator"], bytes):
        return None
    return parts


def store(inputs: str, parts: dict) -> None:
    payload = marshal.dumps({k: parts[k] for k in PARTS})
    path = _path(inputs)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW,
                     0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(hashlib.sha256(payload).digest() + payload)
        os.replace(tmp, path)
    except OSError:  # no cache, same bundle
        try:
            os.unlink(tmp)
        except OSError:
            pass
