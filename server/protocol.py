"""The answers of the server's custom requests that carry the core's records, declared once
(pydantic): the core's shape (runner/app/shapes.py) plus what an editor needs, camelCase as
every LSP field. server/export.py generates the extension's types from these
(vscode-extension/src/generated/protocol.ts); tests validate what the server sends.

Imported only where a shape is published or checked: pydantic is a heavy seam.
"""

from __future__ import annotations

from typing import Any, Literal

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



# ---------------------------------------------------------------- fixture runs
FixtureStatus = Literal["passed", "failed", "error", "recorded"]


class Difference(Shape):
    """One difference between a fixture's expected and actual output
    (runner/fixtures/compare.py `Difference`); `expected`/`actual` absent where a side has none."""

    path: str = Field(description='where, as a JSON path: "$.total"')
    kind: str
    message: str
    expected: Any = None
    actual: Any = None
    note: str | None = None


class FixtureResult(Shape):
    """A fixture run's result, structured (server/run_replies.py `RunReply`): `differences`
    typed, `diff` their rendering."""

    fixture: str
    uri: str = Field(description='the fixture file ("" when there is none)')
    status: FixtureStatus
    outcome: FixtureStatus
    message: str
    messages: list[str]
    diff: str
    differences: list[Difference]
    stdout: str
    target: LspRange | None = Field(description='where the result is shown in the fixture '
                                    'file: its top-level "expected" key, else its start '
                                    '(null: no file)')
    pendingUri: str | None = Field(None, description="the pending change the run wrote")


class RunResponse(Shape):
    """The run commands (stepsmith.runStepFixtures, runFixture, recordFixture)."""

    results: list[FixtureResult]
    error: str | None = None


class FixtureResultsNotification(Shape):
    """stepsmith/fixtureResults: a background run's results (run on save / on type)."""

    manifestUri: str
    stepId: str
    results: list[FixtureResult]


class FixtureOutcome(Shape):
    name: str
    passed: bool


class PickFixtureResponse(Shape):
    """stepsmith.values.pickFixture: the fixture whose values are shown, and the choices."""

    fixture: str | None
    fixtures: list[FixtureOutcome]


# ---------------------------------------------------------------- pending changes
class PendingItem(Shape):
    """A pending change of stepsmith.pending.list, or a pending file that cannot be read
    (then only `problem`)."""

    id: str
    workflow: str
    manifestUri: str
    pendingUri: str
    step: str | None = None
    case: str | None = None
    fixtureUri: str | None = None
    source: str | None = None
    isNew: bool | None = None
    differences: list[Difference] | None = None
    oldText: str | None = None
    newText: str | None = None
    problem: str | None = None


class PendingListResponse(Shape):
    items: list[PendingItem]


class PendingDecision(Shape):
    id: str
    outcome: Literal["accepted", "already", "rejected", "skipped", "refused"]
    message: str


class PendingDecisionResponse(Shape):
    decisions: list[PendingDecision]
    summary: str


# ---------------------------------------------------------------- coverage
#: 0-based lines; an arc that leaves the function ends in "exit".
CoverageArc = tuple[int, int | Literal["exit"]]


class FixtureCoverage(Shape):
    lines: list[int]
    arcs: list[CoverageArc]


class CoverageInfo(Shape):
    executed: list[int]
    missing: list[int]
    takenArcs: list[CoverageArc]
    missingArcs: list[CoverageArc]
    fixtures: dict[str, FixtureCoverage] = Field(description="by fixture name")
    percent: float
    stale: bool = Field(description="the file changed since these runs")


class CoverageResponse(Shape):
    """stepsmith/coverage {uri}: the step file's coverage by its last traced fixture runs."""

    uri: str
    coverage: CoverageInfo | None


# ---------------------------------------------------------------- mutants
class MutantEntry(shapes.Mutant):
    """A mutant record, with the file's URI and, in the file asked about, its LSP range."""

    uri: str
    range: LspRange | None = None


class MutantsResponse(Shape):
    """stepsmith/mutants {uri} and the stepsmith.mutants command: the records of `stepsmith
    mutants --format json`."""

    uri: str
    mutants: list[MutantEntry]
    summary: shapes.MutantsSummary | None = None
    opted_out: list[shapes.OptedOutLine] | None = None
    notes: list[str] | None = None
    cancelled: bool | None = None


class MutantResultsNotification(Shape):
    """stepsmith/mutantResults: a step file's mutants were judged again."""

    uri: str
    summary: shapes.MutantsSummary

#: The shapes generated into protocol.ts (written sorted by name).
GENERATED = (ReachResponse, FixturesResponse, StatusResponse, PythonResponse, RuleDoc,
             RunResponse, FixtureResultsNotification, PickFixtureResponse, PendingListResponse,
             PendingDecisionResponse, CoverageResponse, MutantsResponse,
             MutantResultsNotification, *shapes.AGENT_TOOL_INPUTS.values())
