"""The fixtures listing names a workflow only by a string: a manifest's `workflow:` is workflow
data, any YAML value until it validates, and the editor's listing is declared `string | null`
(server/protocol.py FixtureWorkflow)."""

from __future__ import annotations

import pytest
from stepsmith.runner.lines import split_lines
from stepsmith.runner.workspace.index import WorkspaceIndex, norm
from stepsmith.runner.workspace.snapshot import Buffer, WorkspaceSnapshot
from stepsmith.runner.workspace.tables import fixture_listing

STEP = "steps:\n  - id: a\n    explanation: A.\n    code: steps/a.py:a\n"


@pytest.mark.parametrize("value,shown", [("billing", "billing"), ("3", None), ("[x, y]", None),
                                         ("{k: v}", None), ("null", None)])
def test_a_workflow_is_named_only_by_a_string(tmp_path, value, shown):
    path = norm(tmp_path / "workflow.yaml")
    text = f"workflow: {value}\nversion: 1\n{STEP}"
    snap = WorkspaceSnapshot.of(WorkspaceIndex().with_manifests([path]),
                                {path: Buffer(text, 1, tuple(split_lines(text)))})
    (listing,) = fixture_listing(snap, None)
    assert listing.workflow == shown
    assert [s.id for s in listing.steps] == ["a"]
