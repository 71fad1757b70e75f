"""The editor's view of fixtures: which fixture files a step has, which steps a fixture file
belongs to. Every listing goes through the one layout (runner/fixtures/layout.py, its symlink
rule included), so the editor lists what `stepsmith test` runs and `check` checks. Every
caller (snapshot tables, the server's runs, rename/navigation, the lenses) lists through here.
"""

from __future__ import annotations

import os
from pathlib import Path

from stepsmith.runner.fixtures import layout as fixture_layout
from stepsmith.runner.model import grammar


def fixture_files(manifest_path: str | os.PathLike, step_id: str) -> list[Path]:
    """The fixtures of step `step_id` of the manifest at `manifest_path`, sorted."""
    folder = os.path.dirname(os.fspath(manifest_path))
    return list(fixture_layout.step_folder(folder, step_id).cases)


def folder_fixture_files(folder: str | os.PathLike) -> list[str]:
    """Every fixture and workflow case under a workflow folder (every step folder, declared
    or not: a rename must see them all), sorted."""
    lay = fixture_layout.layout(folder, steps_of=lambda m: ())
    found = [*lay.steps, *([lay.workflow_cases] if lay.workflow_cases else [])]
    return [str(p) for s in sorted(found, key=lambda s: s.name) for p in s.cases]


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
    return [str(p) for p in fixture_layout.folder_manifests(folder)]


def owners(snapshot, fixture_path: str | os.PathLike) -> list[tuple[str, str]]:
    """(manifest path, step id) of every manifest in the fixture's workflow folder that
    declares its step (read on `snapshot`: open buffers win), sorted by manifest."""
    where = step_of(fixture_path)
    if where is None:
        return []
    folder, step_id = where

    def steps_of(m: Path) -> list[str]:
        return [s.id for s in snapshot.steps_of(os.path.normpath(m)) if s.id]

    lay = fixture_layout.layout(folder, steps_of=steps_of)
    return [(os.path.normpath(m), step_id) for m in lay.owners_of(step_id)]
