"""The workspace's tables over a snapshot: where each step's reach is written, which fixtures
exist.

Plain data with `Location`s (runner coordinates); the language server turns them into its
`stepsmith/reach` (with runner/app/reach.py's records) and `stepsmith/fixtures` answers
(server/PROTOCOL.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stepsmith.runner.model.refs import CodeRef

from .fixtures import fixture_files
from .index import code_target
from .snapshot import Location, WorkspaceSnapshot


@dataclass(frozen=True)
class StepFixtures:
    id: str
    location: Location  # the step function's def, else the step in the manifest
    fixtures: tuple[Path, ...]


@dataclass(frozen=True)
class WorkflowFixtures:
    manifest: str
    workflow: str | None
    steps: tuple[StepFixtures, ...]


def reach_locations(snapshot: WorkspaceSnapshot, manifest: str, steps) -> list[tuple]:
    """Where each step record (`StepReach`) of `manifest` is written: (its entry in the
    manifest, its function's `def` or None when the function does not exist)."""
    out = []
    for row in steps:
        ref = CodeRef.parse(row.code)
        code = None
        if ref is not None:
            loc = snapshot.function_location(code_target(manifest, ref), ref.function)
            if loc is not None and any(f.name == ref.function
                                       for f in snapshot.functions(loc.path)):
                code = loc
        out.append((snapshot.step_location(manifest, row.step_id, whole=True), code))
    return out


def fixture_listing(snapshot: WorkspaceSnapshot, path: str | None) -> list[WorkflowFixtures]:
    out = []
    for m in snapshot.index.manifests_for(path):
        doc = snapshot.manifest_doc(m.path)
        if doc is None:
            continue
        data = doc.data if isinstance(doc.data, dict) else {}
        steps = []
        for s in snapshot.steps_of(m.path, doc):
            if not s.id:
                continue
            loc = Location(m.path, s.span)
            if s.code is not None and s.target is not None and any(
                    f.name == s.code.function for f in snapshot.functions(s.target)):
                loc = snapshot.function_location(s.target, s.code.function) or loc
            steps.append(StepFixtures(s.id, loc, tuple(fixture_files(m.path, s.id))))
        name = data.get("workflow")  # workflow data: any YAML value until it validates
        out.append(WorkflowFixtures(m.path, name if isinstance(name, str) else None,
                                    tuple(steps)))
    return out
