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


class FixtureInfo(Shape):
    name: str
    uri: str
    lastResult: Literal["passed", "failed", "error", "recorded"] | None = Field(
        None, description="its last run's outcome in this session (null: not run)")


class FixtureStep(Shape):
    id: str
    uri: str = Field(description="the step function's file (the manifest when it is missing)")
    range: LspRange | None = Field(None, description="its `def` (else the manifest entry)")
    fixtures: list[FixtureInfo]


class FixtureWorkflow(Shape):
    manifestUri: str
    workflow: str | None
    steps: list[FixtureStep]


class FixturesResponse(Shape):
    """stepsmith/fixtures {uri?}: each workflow's steps and their fixtures."""

    workflows: list[FixtureWorkflow]


class StatusResponse(Shape):
    """stepsmith/status: whether steps can run here."""

    sandboxAvailable: bool
    reason: str = Field(description='empty when available, else e.g. "bwrap not found: ..."')
    version: str


class PythonResponse(Shape):
    """stepsmith/python {uri}: the interpreter the document's workflow is checked and run on
    (null: no workflow)."""

    manifestUri: str
    pin: str | None = Field(description="the manifest's `python:` as written; null: none")
    version: str | None
    path: str | None
    build: str | None
    running: bool = Field(description="the interpreter stepsmith itself runs on")
    problem: str | None = Field(description="why there is none (where stepsmith looked and "
                                "how to install it), else null")
    summary: str


class RuleDoc(Shape):
    """stepsmith/rule {code}: a rule of the catalogue (null: no such rule)."""

    code: str
    name: str
    summary: str
    rationale: str
    security: bool
    markdown: str


#: The shapes generated into protocol.ts (written sorted by name).
GENERATED = (ReachResponse, FixturesResponse, StatusResponse, PythonResponse, RuleDoc,
             *shapes.AGENT_TOOL_INPUTS.values())
