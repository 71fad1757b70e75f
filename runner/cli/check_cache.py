"""`stepsmith check`'s result cache, one entry per workflow, as ruff caches per file: a
pre-commit hook re-checks only the workflows whose files changed, and a tree of unchanged
workflows is answered without importing pydantic or the validator.

Key: sha256 over the stepsmith code (version, Python, every runner module's size and mtime),
the current directory (findings carry paths shown from it), `--first`, the manifest's path
and the path and bytes of every file in its folder that a check reads (manifests, `*.py`,
`fixtures/**/*.json`). A folder holding a symlink, a file over the cap or an unreadable file
is never cached. Entries live in the user's cache folder (`$XDG_CACHE_HOME/stepsmith/check`),
never in a workspace: a cloned folder cannot ship answers. `STEPSMITH_NO_CACHE=1` (or
`check --no-cache`) turns it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

FORMAT = 1
MAX_FILES = 2000
SKIP_DIRS = {".stepsmith", "__pycache__", ".git", "node_modules"}


def enabled() -> bool:
    return not os.environ.get("STEPSMITH_NO_CACHE")


def _folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "stepsmith" / "check"


_CODE: str | None = None


def _code_fingerprint() -> str:
    """What would change a check's answer on the stepsmith side."""
    global _CODE
    if _CODE is None:
        from stepsmith import __version__

        h = hashlib.sha256(f"{FORMAT}\0{__version__}\0{sys.version}".encode())
        root = Path(__file__).resolve().parents[1]  # runner/
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith(".py"):
                    st = os.stat(os.path.join(dirpath, name))
                    h.update(f"{dirpath}/{name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
        _CODE = h.hexdigest()
    return _CODE


def key(manifest: Path, first: bool) -> str | None:
    """The entry's key, or None when this workflow must not be cached."""
    from stepsmith.runner import safeio
    from stepsmith.runner.model.grammar import is_manifest_name

    folder = manifest.parent
    h = hashlib.sha256(f"{_code_fingerprint()}\0{os.getcwd()}\0{first}\0{manifest}\0".encode())
    count = 0
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        rel_dir = os.path.relpath(dirpath, folder)
        for d in dirnames:
            if os.path.islink(os.path.join(dirpath, d)):
                return None  # resolution depends on what it points at
        for name in sorted(filenames):
            rel = os.path.normpath(os.path.join(rel_dir, name))
            wanted = (name.endswith(".py") or (rel_dir == "." and is_manifest_name(name))
                      or (rel.startswith("fixtures" + os.sep) and name.endswith(".json")))
            if not wanted:
                continue
            count += 1
            if count > MAX_FILES:
                return None
            try:
                data = safeio.read_bytes(Path(dirpath) / name, root=folder, cap=safeio.FIXTURE_CAP)
            except OSError:  # a symlink, too large, unreadable: check it for real
                return None
            h.update(f"{rel}\0{len(data)}\0".encode() + hashlib.sha256(data).digest())
    return h.hexdigest()


def get(k: str | None) -> dict | None:
    if k is None:
        return None
    try:
        with open(_folder() / f"{k}.json", encoding="utf-8") as fh:
            entry = json.load(fh)
    except (OSError, ValueError):
        return None
    return entry if isinstance(entry, dict) and entry.get("format") == FORMAT else None


def put(k: str | None, entry: dict) -> None:
    if k is None:
        return
    from stepsmith.runner.safeio import write_atomic

    folder = _folder()
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(folder / f"{k}.json", json.dumps({"format": FORMAT, **entry}))
    except OSError:  # a read-only home: no cache, same answers
        pass


def problem_from_json(d: dict):
    from stepsmith.runner.problems import Problem, Severity, Span

    return Problem(code=d["code"], message=d["message"],
                   span=Span(d["line"], d["column"], d["end_line"], d["end_column"]),
                   path=d.get("path"), step=d.get("step"), rationale=d.get("rationale", ""),
                   severity=Severity(d.get("severity", "error")), data=d.get("data") or {})
