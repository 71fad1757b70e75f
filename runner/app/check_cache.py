"""`stepsmith check`'s result cache, one entry per workflow, as ruff caches per file: a
pre-commit hook re-checks only the workflows whose files changed, and a tree of unchanged
workflows is answered without importing pydantic or the validator.

What a key covers: the stepsmith code (version, Python, every runner module's size and
mtime), the active settings, the current directory (findings carry paths shown from it),
`--first`, the manifest's path and every file in its folder that a check reads (manifests,
`*.py`, `fixtures/**/*.json`). A folder holding a symlink, anything but regular files there,
a file over the cap or an unreadable file is never cached.

Two keys per workflow, as git's index and ruff's cache tell a change without reading files:
- the *stat* key: each file's path, size, mtime, ctime, inode and device. Cheap (no file is
  opened), and safe because every write moves the ctime, which no tool can set back. It is
  used only when every file is older than `RACY_S`: a file written in the same clock tick as
  the check that cached it could change again within that tick unseen (git's "racily
  clean" entries), and a coarse file system clock (FAT, some network mounts) ticks slowly.
- the *content* key: the bytes of every file. Used for a folder with a recent change, and
  on a stat-key miss (a `touch`, a checkout rewriting identical bytes): a content hit is
  then stored under the stat key too.
An answer is stored only if the folder's files did not change while it was being checked.

Entries live in the user's cache folder (`$XDG_CACHE_HOME/stepsmith/check`), never in a
workspace: a cloned folder cannot ship answers. A cache folder can still come from elsewhere
(a CI cache another branch saved, a restored home), and an entry saying "no problems" would
hide them: each entry carries a MAC under this user's key (runner/userkey.py, as the store's
rows and the harness bundles), bound to its key, and one that does not match is no answer.
Without a usable key nothing is cached. `STEPSMITH_NO_CACHE=1` (or `check --no-cache`) turns
it off.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
import time
from pathlib import Path
from typing import TypeGuard

FORMAT = 3  # 3: entries carry a MAC
MAX_FILES = 2000
FILE_CAP = 8 * 1024 * 1024  # safeio.FIXTURE_CAP, the largest file a check reads
RACY_S = 2.0
_LABEL = b"stepsmith check cache"  # this use's key, derived from the user's (userkey.derived)
SKIP_DIRS = {".stepsmith", "__pycache__", ".git", "node_modules"}


def enabled() -> bool:
    return not os.environ.get("STEPSMITH_NO_CACHE")


_FOLDERS: dict[str | None, Path] = {}


def _folder() -> Path:
    """$XDG_CACHE_HOME/stepsmith/check (~/.cache without it), worked out once per value."""
    env = os.environ.get("XDG_CACHE_HOME")
    folder = _FOLDERS.get(env)
    if folder is None:
        base = env or os.path.join(os.path.expanduser("~"), ".cache")
        folder = _FOLDERS[env] = Path(base) / "stepsmith" / "check"
    return folder


_CODE: str | None = None


def _code_fingerprint() -> str:
    """What would change a check's answer on the stepsmith side (runner/codeprint.py), worked
    out once."""
    global _CODE
    if _CODE is None:
        from stepsmith.runner.codeprint import code_fingerprint

        _CODE = code_fingerprint(str(FORMAT))
    return _CODE


def _settings_fingerprint() -> str:
    """The active settings (limits, paths, jobs and the file they came from): none changes a
    check's answer today, and an answer must not outlive a change that one day does."""
    from stepsmith.runner.settings import active

    s = active()
    return repr((str(s.source), s.paths, s.jobs, sorted(s.limits.items())))


def _now() -> float:
    return time.time()


def _listing(folder: Path) -> list[tuple[str, os.stat_result]] | None:
    """(path relative to `folder`, lstat) of every file a check of this folder reads, in a
    fixed order; None when the folder must not be cached. (os.scandir: the entries' types
    come with the listing, and a pre-commit hook lists every workflow of the tree.)"""
    from stepsmith.runner.model.grammar import is_manifest_name

    out: list[tuple[str, os.stat_result]] = []
    todo = [""]
    while todo:
        rel_dir = todo.pop()
        try:
            with os.scandir(os.path.join(folder, rel_dir)) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            return None
        subdirs = []
        for e in entries:
            rel = os.path.join(rel_dir, e.name)
            if e.is_symlink():
                if e.is_dir() or _wanted(rel_dir, e.name, is_manifest_name):
                    return None  # resolution depends on what it points at
                continue
            if e.is_dir(follow_symlinks=False):
                if e.name not in SKIP_DIRS:
                    subdirs.append(rel)
                continue
            if not _wanted(rel_dir, e.name, is_manifest_name):
                continue
            if len(out) >= MAX_FILES:
                return None
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                return None
            if not stat.S_ISREG(st.st_mode) or st.st_size > FILE_CAP:
                return None  # a device, a fifo, too large: check it for real
            out.append((rel, st))
        todo.extend(reversed(subdirs))  # depth first, in name order
    return out


def _wanted(rel_dir: str, name: str, is_manifest_name) -> bool:
    """Whether a check of the workflow reads this file: its manifests, any `*.py`, and the
    fixtures' JSON."""
    return (name.endswith(".py") or (rel_dir == "" and is_manifest_name(name))
            or ((rel_dir == "fixtures" or rel_dir.startswith("fixtures" + os.sep))
                and name.endswith(".json")))


def _stat_rows(files) -> list[tuple]:
    return [(rel, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
            for rel, st in files]


class Slot:
    """Where one workflow's answer is looked up and stored."""

    def __init__(self, folder: Path, base: str, files) -> None:
        self.folder, self.base, self.files = folder, base, files
        self.rows = _stat_rows(files)
        newest = max((max(st.st_mtime, st.st_ctime) for _, st in files), default=0.0)
        self.racy = _now() - newest < RACY_S
        self.stat_key = None if self.racy else self._hash(repr(self.rows).encode())
        self._content: str | None = None

    def _hash(self, data: bytes) -> str:
        return hashlib.sha256(self.base.encode() + b"\0" + data).hexdigest()

    def content_key(self) -> str | None:
        """The key over the files' bytes (read through safeio, as the check reads them)."""
        if self._content is None:
            self._content = _content_key(self)
        return self._content or None


def _content_key(slot: Slot) -> str:
    from stepsmith.runner import safeio

    h = hashlib.sha256(b"content\0")
    for rel, _st in slot.files:
        try:
            data = safeio.read_bytes(slot.folder / rel, root=slot.folder, cap=FILE_CAP)
        except OSError:  # unreadable, or replaced by a symlink meanwhile: check it for real
            return ""
        h.update(f"{rel}\0{len(data)}\0".encode() + hashlib.sha256(data).digest())
    return slot._hash(h.digest())


def slot(manifest: Path, first: bool) -> Slot | None:
    """The cache slot of the workflow of `manifest` (resolved), or None: not cacheable."""
    files = _listing(manifest.parent)
    if files is None:
        return None
    base = (f"{_code_fingerprint()}\0{_settings_fingerprint()}\0{os.getcwd()}\0{first}\0"
            f"{manifest}")
    return Slot(manifest.parent, base, files)


def _mac(k: str, body: bytes) -> bytes | None:
    """The entry's MAC under this user's key, bound to its key `k`; None without a usable key
    (then no cache)."""
    from stepsmith.runner.userkey import KeyUnavailable, derived

    try:
        key = derived(_LABEL)
    except KeyUnavailable:
        return None
    return hmac.new(key, k.encode() + b"\0" + body, hashlib.sha256).hexdigest().encode()


def _read(k: str | None) -> dict | None:
    """The entry stored under `k`, if this user's stepsmith wrote it (its MAC matches)."""
    if k is None:
        return None
    try:
        fd = os.open(os.path.join(_folder(), f"{k}.json"), os.O_RDONLY | os.O_NOFOLLOW
                     | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            raw = fh.read(FILE_CAP + 1)
    except OSError:
        return None
    mac, _, body = raw.partition(b"\n")
    want = _mac(k, body)
    if want is None or not hmac.compare_digest(mac, want):  # planted, edited, another key's
        return None
    try:
        entry = json.loads(body)
    except (ValueError, RecursionError):  # damaged: no answer
        return None
    return entry if isinstance(entry, dict) and entry.get("format") == FORMAT else None


def _write(k: str | None, entry: dict) -> None:
    if k is None:
        return
    from stepsmith.runner.safeio import write_atomic

    body = json.dumps({**entry, "format": FORMAT}).encode()
    mac = _mac(k, body)
    if mac is None:
        return
    folder = _folder()
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(folder / f"{k}.json", mac + b"\n" + body,
                     durable=False)  # a lost entry: one more check
    except OSError:  # a read-only home: no cache, same answers
        pass


def get(s: Slot | None) -> dict | None:
    """The cached answer for this slot: by the stat key, else by the content key (then
    remembered under the stat key too)."""
    if s is None:
        return None
    entry = _read(s.stat_key)
    if _whole(entry):
        return entry
    entry = _read(s.content_key())
    if not _whole(entry):
        return None
    if s.stat_key is not None:
        _write(s.stat_key, entry)
    return entry


def _whole(entry: dict | None) -> TypeGuard[dict]:
    """An answer every part of which reads back (a damaged entry is checked again, never an
    internal error): problems by file, step files, which steps run each function, stale."""
    if entry is None:
        return False
    try:
        for _path, dicts in entry["problems"]:
            [problem_from_json(d) for d in dicts]
        [str(p) for p in entry["step_files"]]
        for _p, _function, ids in entry["steps_of"]:
            list(ids)
        if entry["stale"]:  # (imported only then, as collect() does to show them)
            from stepsmith.runner.fixtures.stale import StaleFixture

            [StaleFixture(**d) for d in entry["stale"]]
    except (KeyError, TypeError, ValueError, AttributeError):
        return False
    return True


def put(s: Slot | None, entry: dict) -> bool:
    """Store the answer just computed for this slot, unless a file changed meanwhile (the
    answer could then be that of neither version). True when it was stored."""
    if s is None:
        return False
    again = _listing(s.folder)
    if again is None or _stat_rows(again) != s.rows:
        return False
    if s.racy:  # a change within the clock tick would not show in the stat: compare bytes
        before = s.content_key()
        s._content = None
        if before is None or s.content_key() != before:
            return False
    _write(s.content_key(), entry)
    _write(s.stat_key, entry)
    return True


def facts_key(s: Slot | None) -> str | None:
    """The key of the part of a workflow's answer no step file changes (app/check_units.py):
    the bytes of every file the check reads that is not Python (its manifests and fixtures),
    under the slot's base (stepsmith, settings, cwd, --first, the manifest)."""
    if s is None:
        return None
    from stepsmith.runner import safeio

    h = hashlib.sha256(b"facts\0")
    for rel, _st in s.files:
        if rel.endswith(".py"):
            continue
        try:
            data = safeio.read_bytes(s.folder / rel, root=s.folder, cap=FILE_CAP)
        except OSError:
            return None
        h.update(f"{rel}\0{len(data)}\0".encode() + hashlib.sha256(data).digest())
    return "facts-" + s._hash(h.digest())


def get_facts(k: str | None) -> dict | None:
    entry = _read(k)
    if entry is None or not isinstance(entry.get("model"), bool):
        return None
    stale = entry.get("stale")
    if not _whole({"problems": [["", entry.get("manifest")], *(entry.get("fixtures") or [])],
                   "step_files": [], "steps_of": [],
                   "stale": stale if stale is not None else []}):
        return None
    return entry


def put_facts(k: str | None, facts: dict) -> None:
    """Stored only beside an answer `put` kept (no file changed during the check)."""
    _write(k, facts)


def problem_from_json(d: dict):
    from stepsmith.runner.problems import Problem, Severity, Span

    return Problem(code=d["code"], message=d["message"],
                   span=Span(d["line"], d["column"], d["end_line"], d["end_column"]),
                   path=d.get("path"), step=d.get("step"), rationale=d.get("rationale", ""),
                   severity=Severity(d.get("severity", "error")), data=d.get("data") or {})
