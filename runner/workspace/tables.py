"""The workspace's tables over a snapshot: what each step may reach, which fixtures exist.

Plain data with `Location`s (runner coordinates); the language server turns them into its
`stepsmith/reach` and `stepsmith/fixtures` answers (server/PROTOCOL.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stepsmith.runner.model.refs import CodeRef

from .fixtures import fixture_files
from .index import code_target
from .snapshot import Location, WorkspaceSnapshot


@dataclass(frozen=True)
class WorkflowReach:
    manifest: str
    workflow: str | None
    steps: tuple  # ((StepReach, Location of the step, Location of its def | None), ...)
    error: str | None = None


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


def reach_table(snapshot: WorkspaceSnapshot, path: str | None) -> list[WorkflowReach]:
    from stepsmith.runner.reach import reach_rows

    out = []
    for m in snapshot.index.manifests_for(path):
        doc = snapshot.manifest_doc(m.path)
        if doc is None or doc.workflow is None:
            data = getattr(doc, "data", None)
            name = data.get("workflow") if isinstance(data, dict) else None
            out.append(WorkflowReach(m.path, name, (), "the manifest has errors; fix them to see "
                                     "the reach table"))
            continue
        rows = []
        for row in reach_rows(doc.workflow):
            ref = CodeRef.parse(row.code)
            code = None
            if ref is not None:
                loc = snapshot.function_location(code_target(m.path, ref), ref.function)
                if loc is not None and any(f.name == ref.function for f in snapshot.functions(loc.path)):
                    code = loc
            rows.append((row, snapshot.step_location(m.path, row.step_id, whole=True), code))
        out.append(WorkflowReach(m.path, doc.workflow.workflow, tuple(rows)))
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
            if s.code is not None and any(f.name == s.code.function for f in snapshot.functions(s.target)):
                loc = snapshot.function_location(s.target, s.code.function)
            steps.append(StepFixtures(s.id, loc, tuple(fixture_files(m.path, s.id))))
        out.append(WorkflowFixtures(m.path, data.get("workflow"), tuple(steps)))
    return out
