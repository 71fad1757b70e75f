"""The compiled harness bundle kept between runs (parent side; nothing here runs in the
sandbox): what `harness.bundle()` compiles is the same for the same sources on the same
interpreter, and compiling it (~40 files) was most of `stepsmith test`'s start-up (issue 20).

An entry is named by everything the compiled parts are made from: the digest of every source
(the digest the runtime identity is made of) and the allowed modules the facades are bound
to (`inputs`), this module's FORMAT and the interpreter (its version, its bytecode magic and
its optimisation level): any change to any of them names another entry.
It lives in the user's cache folder (`$XDG_CACHE_HOME/stepsmith/harness`), as Python keeps
its own bytecode beside the sources: a workspace cannot ship one.

An entry becomes the in-sandbox runtime of every run (live runs with real credentials
included), and a cache folder can be shared, pre-created by someone else, or restored from
another job's CI cache. So an entry is used only when it is authentic and this user's: its
HMAC-SHA256 under this user's secret key (runner/userkey.py, the store's key, under a label
of its own) covers its name and payload; `stepsmith/` and `stepsmith/harness/` are
directories of this user that no one else may write, walked without following symlinks; the
entry is a regular file of this user opened with `O_NOFOLLOW`. Anything else (forged,
damaged, a symlink, a FIFO, another user's, unreadable) is ignored, compiled again and
reported once per process as a `BundleCacheWarning`; nothing is written into a folder that
fails those checks. Failing to write an entry (a read-only home) costs only the time.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import marshal
import os
import stat
import sys
import warnings
from pathlib import Path

FORMAT = 3
PARTS = ("main", "facades", "trace", "check")
_LABEL = b"stepsmith harness bundle cache\0"
_MAX_BYTES = 64 * 1024 * 1024
_DIRS = ("stepsmith", "harness")
_warned: set[str] = set()


class BundleCacheWarning(UserWarning):
    """A harness cache entry or folder was not trusted: the bundle was compiled instead."""


class _Untrusted(Exception):
    pass


def _base() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME")
                or os.path.join(os.path.expanduser("~"), ".cache"))


def _folder() -> Path:
    return _base().joinpath(*_DIRS)


def _name(inputs: str) -> str:
    from importlib.util import MAGIC_NUMBER

    key = hashlib.sha256(f"{FORMAT}\0{inputs}\0{sys.version}\0{sys.flags.optimize}\0"
                         .encode() + MAGIC_NUMBER).hexdigest()
    return f"{key}.bundle"


def _warn(what: str, why: str) -> None:
    if what not in _warned:
        _warned.add(what)
        warnings.warn(f"stepsmith: the harness cache {what} is not used ({why}); the harness "
                      "is compiled instead", BundleCacheWarning, stacklevel=3)


def _mac(name: str, payload: bytes) -> bytes:
    from stepsmith.runner.userkey import derived

    return hmac.new(derived(_LABEL), name.encode() + b"\0" + payload, hashlib.sha256).digest()


def _own(st: os.stat_result, what: str) -> None:
    if st.st_uid != os.geteuid():
        raise _Untrusted(f"{what} belongs to uid {st.st_uid}, not to this user")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise _Untrusted(f"{what} may be written by other users (mode "
                         f"{stat.S_IMODE(st.st_mode):04o})")


def _open_folder(create: bool) -> int:
    """A descriptor of the cache folder, each of its own levels a directory of this user that
    no one else may write, opened without following a symlink. FileNotFoundError when it does
    not exist (and `create` is false); _Untrusted or OSError otherwise."""
    base = _base()
    if create:
        os.makedirs(base, mode=0o700, exist_ok=True)
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the user's choice
    try:
        for part in _DIRS:
            if create:
                try:
                    os.mkdir(part, 0o700, dir_fd=fd)
                except FileExistsError:
                    pass
            try:
                sub = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                              | os.O_CLOEXEC, dir_fd=fd)
            except NotADirectoryError:
                if stat.S_ISLNK(os.lstat(part, dir_fd=fd).st_mode):
                    raise _Untrusted("a symbolic link") from None
                raise
            os.close(fd)
            fd = sub
            _own(os.fstat(fd), f"folder {base.joinpath(*_DIRS[:_DIRS.index(part) + 1])}")
        return fd
    except BaseException:
        os.close(fd)
        raise


def _read_entry(folder: int, name: str) -> bytes:
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                 dir_fd=folder)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise _Untrusted("not a regular file")
        _own(st, "entry")
        return fh.read(_MAX_BYTES + 1)


def load(inputs: str) -> dict | None:
    """The compiled parts stored for these inputs, or None (nothing stored, or nothing
    trusted: then a warning, once)."""
    name = _name(inputs)
    where = f"entry {_folder() / name}"
    try:
        folder = _open_folder(create=False)
    except FileNotFoundError:
        return None
    except (_Untrusted, OSError) as exc:
        _warn(f"folder {_folder()}", _why(exc))
        return None
    try:
        data = _read_entry(folder, name)
    except FileNotFoundError:
        return None
    except (_Untrusted, OSError) as exc:
        _warn(where, _why(exc))
        return None
    finally:
        os.close(folder)
    return _authentic(name, data, where)


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return "a symbolic link" if exc.errno == errno.ELOOP else exc.strerror.lower()
    return str(exc)


def _authentic(name: str, data: bytes, where: str) -> dict | None:
    from stepsmith.runner.userkey import KeyUnavailable

    check, payload = data[:32], data[32:]
    try:
        good = hmac.compare_digest(_mac(name, payload), check)
    except KeyUnavailable as exc:
        _warn("key", str(exc))
        return None
    if not good or len(data) > _MAX_BYTES:
        _warn(where, "not written by this user's stepsmith (its MAC does not match)")
        return None
    try:
        parts = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        parts = None
    if (not isinstance(parts, dict) or set(parts) != set(PARTS)
            or not all(isinstance(parts[k], bytes) for k in PARTS)):
        _warn(where, "not a harness bundle of this version")
        return None
    return parts


def store(inputs: str, parts: dict) -> None:
    from stepsmith.runner.userkey import KeyUnavailable

    name = _name(inputs)
    payload = marshal.dumps({k: parts[k] for k in PARTS})
    tmp = f".{name}.{os.getpid()}.tmp"
    try:
        mac = _mac(name, payload)
        folder = _open_folder(create=True)
    except (KeyUnavailable, _Untrusted, OSError):  # no cache (load said why), same bundle
        return
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW,
                     0o600, dir_fd=folder)
        with os.fdopen(fd, "wb") as fh:
            fh.write(mac + payload)
        os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except OSError:
        try:
            os.unlink(tmp, dir_fd=folder)
        except OSError:
            pass
    finally:
        os.close(folder)
