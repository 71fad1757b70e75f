"""Manifest discovery, down from a folder and UP from a file or folder (as git/pytest/ruff find
their root): the one answer to "which workflows does this path belong to?" for the CLI, the
pytest plugin and the language server."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from stepsmith.runner.model.grammar import is_manifest_name

SKIP_DIRS = frozenset({".stepsmith", "node_modules", "__pycache__", "venv", "site-packages"})
MAX_UPWARD = 32  # folders climbed at most; never past a repository root (.git) or "/"


@dataclass(frozen=True)
class Found:
    """A workflow manifest reached from a given path. `narrow` is the path itself when it lies
    inside the workflow's folder (a step file, a fixture, `steps/`): callers limit their work
    to what is at or under it; None when the path holds the whole workflow."""

    manifest: Path
    narrow: Path | None = None


def find_manifests(paths) -> list[Path]:
    """Manifests under `paths` (files are taken as given when they are manifests). Skips hidden
    folders, `.stepsmith/`, `node_modules/`, `__pycache__`; sorted, without duplicates."""
    out: list[Path] = []
    seen: set = set()

    def take(p: Path):
        try:  # the same file reached twice (nested folders, a symlink): one stat, not realpath's
            st = os.stat(p)
            key: tuple[int, int] | str = (st.st_dev, st.st_ino)
        except OSError:
            key = os.path.abspath(p)
        if key not in seen:
            seen.add(key)
            out.append(p)

    for raw in paths:
        p = Path(raw)
        if p.is_file():
            if is_manifest_name(p.name):
                take(p)
            continue
        if not p.is_dir():
            continue
        for f in sorted(Path(f) for f in _walk(str(p))):
            take(f)
    return out


def _walk(top: str) -> list[str]:
    """The manifests below `top`, as os.walk would find them (symlinked folders listed, not
    entered; unreadable ones skipped), with os.scandir alone: a pre-commit hook walks the
    whole tree on every commit."""
    found: list[str] = []
    todo = [top]
    while todo:
        d = todo.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError:
            continue
        for e in entries:
            try:
                is_dir = e.is_dir()
            except OSError:
                is_dir = False
            if not is_dir:
                if is_manifest_name(e.name):
                    found.append(os.path.join(d, e.name))
            elif not e.name.startswith(".") and e.name not in SKIP_DIRS and not e.is_symlink():
                todo.append(os.path.join(d, e.name))
    return found


def manifests_in(folder: Path) -> list[Path]:
    """Manifests directly in `folder` (regular files only, sorted)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [folder / n for n in names if is_manifest_name(n) and (folder / n).is_file()]


def nearest_manifests(path: str | os.PathLike) -> list[Path]:
    """The manifests of the nearest folder at or above `path` that holds any: a step file's
    workflow(s). Stops at a repository root (a folder with `.git`) or the filesystem root."""
    p = Path(os.path.abspath(os.fspath(path)))
    d = p if p.is_dir() else p.parent
    for _ in range(MAX_UPWARD):
        found = manifests_in(d)
        if found or (d / ".git").exists() or d.parent == d:
            return found
        d = d.parent
    return []


def discover(paths: Iterable[str | os.PathLike]) -> list[Found]:
    """Every workflow reached from `paths`, each manifest once, in a stable order: manifests
    given or found below a folder, else the nearest ones above (narrowed to the path)."""
    out: dict[Path, Found] = {}

    def take(m: Path, narrow: Path | None) -> None:
        key = m.resolve()
        prev = out.get(key)
        if prev is None:
            out[key] = Found(m, narrow)
        elif prev.narrow is not None and (narrow is None or narrow != prev.narrow):
            out[key] = Found(prev.manifest, None if narrow is None else prev.narrow)

    for raw in paths:
        p = Path(raw)
        if not p.exists():
            continue
        if p.is_file() and is_manifest_name(p.name):
            take(p, None)
            continue
        below = find_manifests([p]) if p.is_dir() else []
        if below:
            for m in below:
                take(m, None)
            continue
        for m in nearest_manifests(p):
            take(m, Path(os.path.abspath(p)))
    return list(out.values())
