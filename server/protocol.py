"""The answers of the server's custom requests that carry the core's records, declared once
(pydantic): the core's shape (runner/app/shapes.py) plus what an editor needs, camelCase as
every LSP field. server/export.py generates the extension's types from these
(vscode-extension/src/generated/protocol.ts); tests validate what the server sends.

Imported only where a shape is published or checked: pydantic is a heavy seam.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from stepsmith.runner.app import shapes
from stepsmith.runner.app.shapes import Shape


class LspPosition(Shape):
    line: int
    character: int


class LspRange(Shape):
    start: LspPosition
    end: LspPosition


class LspLocation(Shape):
    uri: str
    range: LspRange


class SinceHead(Shape):
    """What changed in a workflow's reach since git's HEAD (trusted workspaces in a
    repository)."""

    status: Literal["unchanged", "changed", "added", "unreadable"]
    widens: bool
    changes: list[shapes.ReachChange]


class ReachStep(shapes.StepReach):
    """A step's reach record, with where it is written."""

    location: LspLocation | None = Field(None, description="the step's entry in the manifest")
    codeLocation: LspLocation | None = Field(
        None, description="its function's `def` (null: the function does not exist)")
    changesSinceHead: list[shapes.ReachChange] | None = Field(
        None, description="what changed in this step's reach since git's HEAD (trusted "
        "workspaces in a repository)")


class ReachWorkflow(shapes.WorkflowReach):
    manifestUri: str
    steps: list[ReachStep]
    sinceHead: SinceHead | None = None


class ReachResponse(shapes.ReachReport):
    """stepsmith/reach {uri?}: `stepsmith reach --format json`'s report, for the editor."""

    workflows: list[ReachWorkflow]


#: The shapes generated into protocol.ts, in the order written there.
GENERATED = (ReachResponse, *shapes.AGENT_TOOL_INPUTS.values())
