"""Step files as the workflow check reads them: top-level function signatures and capped
disk reads, cached by content hash and by file stamp."""

from __future__ import annotations

import ast
import hashlib
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from stepsmith.runner import safeio
from stepsmith.runner.pyparse import parse_module

MAX_STEP_FILE_BYTES = 2 * 1024 * 1024  # larger files are left to the validator's own cap


@dataclass(frozen=True)
class FunctionSig:
    name: str
    line: int
    params: tuple[str, ...]  # positional-or-keyword and keyword-only names, in order
    problems: tuple[str, ...]  # unsupported signature features, described


@dataclass(frozen=True)
class ParsedStepFile:
    functions: dict  # name -> FunctionSig (top-level def / async def only)
    ok: bool  # False when the file did not parse (the validator reports why)


_CACHE_LOCK = threading.Lock()
_PARSE_CACHE: OrderedDict[str, ParsedStepFile] = OrderedDict()
_CACHE_SIZE = 512


def _cache_get(cache: OrderedDict, key):
    with _CACHE_LOCK:
        v = cache.get(key)
        if v is not None:
            cache.move_to_end(key)
        return v


def _cache_put(cache: OrderedDict, key, value):
    with _CACHE_LOCK:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > _CACHE_SIZE:
            cache.popitem(last=False)


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def parse_step_file(text: str, digest: str | None = None) -> ParsedStepFile:
    digest = digest or _digest(text)
    hit = _cache_get(_PARSE_CACHE, digest)
    if hit is not None:
        return hit
    result = ParsedStepFile({}, False)
    if len(text) <= MAX_STEP_FILE_BYTES:
        try:
            tree = parse_module(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            tree = None
        if tree is not None:
            funcs = {}
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    a = node.args
                    issues = []
                    if a.posonlyargs:
                        issues.append("positional-only parameters")
                    if a.vararg:
                        issues.append(f"*{a.vararg.arg}")
                    if a.kwarg:
                        issues.append(f"**{a.kwarg.arg}")
                    if a.defaults or any(d is not None for d in a.kw_defaults):
                        issues.append("default values")
                    params = tuple(x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs))
                    funcs[node.name] = FunctionSig(node.name, node.lineno, params, tuple(issues))
            result = ParsedStepFile(funcs, True)
    _cache_put(_PARSE_CACHE, digest, result)
    return result



def clear_caches() -> None:
    with _CACHE_LOCK:
        _PARSE_CACHE.clear()
        _DISK_CACHE.clear()


_DISK_CACHE: OrderedDict[Path, tuple] = OrderedDict()


# a stamp younger than this may not tell two writes apart (check_cache.RACY_S: a coarse file
# system clock, FAT's 2 s or a jiffy): such a file is read again (git's "racily clean")
RACY_NS = 2_000_000_000


def _read_step_from_disk(path: Path, root: Path) -> tuple:
    """(text, digest, raw bytes when not UTF-8) or (None, None, None); re-read only when the
    file's (mtime_ns, ctime_ns, size, inode) changed or is too recent to tell (RACY_NS), so a
    re-check per keystroke does not re-hash files. Only a regular file whose real path is
    inside the workflow folder `root`, capped."""
    try:
        st = path.stat()
    except OSError:
        return (None, None, None)
    if not os.path.isfile(path):
        return (None, None, None)
    stamp = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
    hit = _cache_get(_DISK_CACHE, path)
    if hit is not None and hit[0] == stamp \
            and time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) >= RACY_NS:
        return hit[1]
    try:
        data = safeio.read_bytes(path, root=root, cap=safeio.STEP_FILE_CAP)
    except OSError:
        return (None, None, None)
    try:
        # a byte order mark is encoding, not text: dropped as it decodes (as the manifest's
        # reader does), so columns are the ones an editor shows
        t = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
        entry = (t, _digest(t), None)
    except UnicodeDecodeError:
        entry = (None, None, data)  # the validator reports SS004 with its position
    _cache_put(_DISK_CACHE, path, (stamp, entry))
    return entry
