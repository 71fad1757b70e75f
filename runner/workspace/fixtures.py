"""The fixtures model: which fixture files a step has, which steps a fixture file belongs to.

`fixtures/<step-id>/<case>.json` lives beside the manifests (`grammar.FIXTURES_DIR`). Several
manifests in one folder share it: `fixtures/<step-id>/` belongs to every manifest there that
declares the step. Only files whose stem is a case name are listed (grammar.is_case_name).
One symlink policy, safeio's: a symlinked fixtures folder, step folder or
fixture file is never listed (a listing never leaves the workflow folder), and only regular
files count. Every caller (snapshot tables, the server's runs, rename/navigation, the lenses)
lists through here.
"""

from __future__ import annotations

import os
from pathlib import Path

from stepsmith.runner.model import grammar


def _plain_dir(path: str) -> bool:
    return os.path.isdir(path) and not os.path.islink(path)


def _plain_file(path: str) -> bool:
    return os.path.isfile(path) and not os.path.islink(path)


def _folder_name(step_id: str) -> bool:
    """A step id usable as one folder name (a hostile id never climbs: `..`, `a/b`)."""
    return bool(step_id) and step_id not in (".", "..") and "/" not in step_id \
        and os.sep not in step_id and "\0" not in step_id


def fixtures_root(folder: str | os.PathLike) -> str:
    return os.path.join(os.fspath(folder), grammar.FIXTURES_DIR)


def _names(folder: str) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


def _cases(step_dir: str) -> list[str]:
    """The fixtures in a step folder: regular `<case>.json` files whose stem is a case name
    (any other name is never listed: it is `check`'s SF009, and never becomes a test item)."""
    return [os.path.join(step_dir, n) for n in _names(step_dir)
            if n.endswith(".json") and grammar.is_case_name(n[:-5])
            and _plain_file(os.path.join(step_dir, n))]


def fixture_files(manifest_path: str | os.PathLike, step_id: str) -> list[Path]:
    """The fixtures of step `step_id` of the manifest at `manifest_path`, sorted."""
    root = fixtures_root(os.path.dirname(os.fspath(manifest_path)))
    step_dir = os.path.join(root, step_id)
    if not _folder_name(step_id) or not _plain_dir(root) or not _plain_dir(step_dir):
        return []
    return [Path(p) for p in _cases(step_dir)]


def folder_fixture_files(folder: str | os.PathLike) -> list[str]:
    """Every `fixtures/<step>/*.json` under a workflow folder (every step folder, declared or
    not: a rename must see them all), sorted."""
    root = fixtures_root(folder)
    if not _plain_dir(root):
        return []
    out: list[str] = []
    for step in _names(root):
        d = os.path.join(root, step)
        if _plain_dir(d):
            out += _cases(d)
    return out


def step_of(fixture_path: str | os.PathLike) -> tuple[str, str] | None:
    """(workflow folder, step id) a path names as `<folder>/fixtures/<step-id>/<case>.json`."""
    p = os.path.normpath(os.path.abspath(os.fspath(fixture_path)))
    step_dir = os.path.dirname(p)
    root = os.path.dirname(step_dir)
    step_id = os.path.basename(step_dir)
    if not p.endswith(".json") or os.path.basename(root) != grammar.FIXTURES_DIR \
            or step_id == grammar.WORKFLOW_CASES_DIR:
        return None
    return os.path.dirname(root), step_id


def folder_manifests(folder: str) -> list[str]:
    """The manifests in `folder` itself (not below), sorted."""
    return [os.path.join(folder, n) for n in _names(folder)
            if grammar.is_manifest_name(n) and _plain_file(os.path.join(folder, n))]


def owners(snapshot, fixture_path: str | os.PathLike) -> list[tuple[str, str]]:
    """(manifest path, step id) of every manifest in the fixture's workflow folder that
    declares its step (read on `snapshot`: open buffers win), sorted by manifest."""
    where = step_of(fixture_path)
    if where is None:
        return []
    folder, step_id = where
    out = []
    for m in folder_manifests(folder):
        key = os.path.normpath(m)
        if any(s.id == step_id for s in snapshot.steps_of(key)):
            out.append((key, step_id))
    return out
