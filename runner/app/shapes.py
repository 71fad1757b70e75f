"""The JSON shapes of the core's answers, declared once (pydantic): `stepsmith reach --format
json`, MCP `reach` (published as its output schema), the agent tool, and the language server's
`stepsmith/reach` (server/protocol.py adds the editor's URIs and ranges) send exactly these.
The VS Code extension's types are generated from them (server/export.py ->
vscode-extension/src/generated/protocol.ts), and tests validate what each front end sends.

Imported only where a shape is published or checked: pydantic is a heavy seam.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Shape(BaseModel):
    """A declared JSON object: no key beyond the declared ones."""

    model_config = ConfigDict(extra="forbid")


class Interpreter(Shape):
    """The interpreter a workflow's pin names on this machine."""

    path: str = Field(description="the real binary")
    version: str = Field(description="its release, e.g. 3.13.5")
    build: str
    running: bool = Field(description="the interpreter stepsmith itself runs on")


class WorkflowPython(Shape):
    """A workflow's `python:` pin and what it names here (runner/pythons/report.py)."""

    pin: str | None = Field(description="the manifest's `python:` as written; null: none")
    interpreter: Interpreter | None = Field(description="null: the pinned Python is not found")
    problem: str | None = Field(description="why there is none (SM501's text), else null")


class StepReach(Shape):
    """What one step is permitted to reach (runner/reach.py `StepReach`): declared
    permissions, not a review of the code."""

    step_id: str
    function: str = Field(description="the step function's name")
    code: str = Field(description='the code reference as written, "steps/match.py:match"')
    network: Literal["none", "public_egress"]
    connections: list[str] = Field(description="granted connection aliases, declared order")
    sources: list[str] = Field(description="sources read through inputs, input order")
    effects: list[str] = Field(description="effects the step may emit")
    explanation: str
    reaches_nothing: bool = Field(description="no network, connections, sources or effects")
    source_origins: dict[str, str] = Field(description=(
        'where each source read comes from: "connection xero", "channel finance-requests", '
        '"graph query open_invoices"'))
    effect_targets: dict[str, str] = Field(description=(
        'what each effect does where: "create via xero", "send to channel finance-requests"'))


class WorkflowReach(Shape):
    """One workflow of a reach report: every step, also those reaching nothing."""

    manifest: str = Field(description="the manifest, as the front end shows paths")
    workflow: str | None = Field(description="its slug (null when it cannot be read)")
    version: int | None
    python: WorkflowPython = Field(description="the interpreter its steps are checked and "
                                   "run on")
    problems: int = Field(description="problems in the manifest (`stepsmith check` lists them)")
    error: str | None = Field(description="why the manifest cannot be read as a workflow "
                              "(then `steps` is empty), else null")
    steps: list[StepReach]


class ReachReport(Shape):
    """What each step of each workflow is permitted to reach (runner/app/reach.py)."""

    sentence: str = Field(description="what this report is, and what it is not")
    workflows: list[WorkflowReach]


class ReachChange(Shape):
    """One change of a step's reach since a git revision (runner/revisions/reach_changes.py)."""

    kind: str = Field(description="step-added, network, connection-granted, source-origin, ...")
    step: str
    before: str | None
    after: str | None
    widens: bool
    description: str



class Mutant(Shape):
    """One mutant and its verdict (runner/mutants/verdicts.py `MutantRecord`): lines 1-based,
    columns 0-based code points, end exclusive."""

    path: str = Field(description="the step file, as the front end shows paths")
    line: int = Field(description="1-based")
    column: int = Field(description="0-based, in code points")
    end_line: int
    end_column: int = Field(description="exclusive")
    operator: str = Field(description="what kind of change (comparison, arithmetic, ...)")
    original: str
    replacement: str
    status: Literal["killed", "survived", "timeout", "error"] = Field(
        description="a timeout counts as killed")
    killed_by: str | None = Field(description="the node id of the first fixture that noticed")
    fixtures_run: int
    duration_ms: float
    steps: list[str] = Field(description="the steps whose code holds the change")
    hint: str = Field(description="what to record so a fixture notices (survivors), else empty")
    note: str = Field(description='why this status ("cpu_limit: counted as killed", ...)')
    cached: int = Field(description="how many of fixtures_run were answered from the cache")


class MutantsSummary(Shape):
    mutants: int
    killed: int
    survived: int
    timeout: int
    error: int
    seconds: float
    score: float = Field(description="percent of the judged mutants a fixture noticed")
    refused: int = Field(description="mutants the dialect validator refused: not run")
    opted_out: int = Field(description="mutants on `# stepsmith: no-mutate` lines")
    fixture_runs: int
    baseline_runs: int = Field(description="fixture runs on the unmutated code (coverage)")
    blocked: int = Field(description="workflows not mutated because of their check problems")
    cancelled: bool


class OptedOutLine(Shape):
    path: str
    line: int
    text: str
    mutants: int


class MutantsReport(Shape):
    """`stepsmith mutants --format json` and MCP `mutants` (runner/app/mutants.py)."""

    mutants: list[Mutant] = Field(description="survivors first")
    summary: MutantsSummary
    opted_out: list[OptedOutLine]
    notes: list[str] = Field(description="fixtures left out, steps skipped")

# ---------------------------------------------------------------- agent tools' inputs
# What the editor's language-model tools take (package.json `languageModelTools`, generated
# by server/export.py); the tools answer with the use cases `stepsmith mcp` serves.

_WORKFLOW = "the workflow folder or its manifest, relative to the workspace"
_STEP = "the step id"
_INPUTS = "parameter -> value (inputs the manifest gives as literals may be left out)"
_AT = ("the pinned evaluation time, ISO 8601, e.g. 2026-12-01T07:00:00+00:00; without an "
       "offset it is wall time in the workflow's own zone (a wall time the zone repeats or "
       "skips is refused, naming both readings)")
_PATHS = ("files, folders or fixture ids (workflow::step::case) inside the workspace "
          "(default: the whole workspace)")


class ToolInput(BaseModel):
    """A tool's arguments; an absent optional one takes the tool's default."""


class CheckInput(ToolInput):
    paths: list[str] | None = Field(None, description=_PATHS)


class ReachInput(ToolInput):
    path: str | None = Field(None, description="a workflow folder or manifest (default: the "
                             "workspace)")


class ExplainRuleInput(ToolInput):
    code: str = Field(description="the rule code, e.g. SS101, SM205")


class RunStepInput(ToolInput):
    workflow: str = Field(description=_WORKFLOW)
    step: str = Field(description=_STEP)
    inputs: dict[str, object] = Field(description=_INPUTS)
    evaluation_time: str | None = Field(None, description=_AT)
    seed: int | None = Field(None, description="the seed for sampling (statistics)")


class TestInput(ToolInput):
    __test__ = False  # not a pytest class

    paths: list[str] | None = Field(None, description=_PATHS)
    k: list[str] | None = Field(None, description="pytest-style -k expressions (any of them)")
    full: bool | None = Field(None, description="every selected fixture whole, passes included "
                              "(with paths naming one fixture: its details)")
    offset: int | None = Field(None, ge=0, description="where the page starts (a previous "
                               "answer's next_offset)")
    limit: int | None = Field(None, ge=1, le=500, description="fixtures per page (default 50)")


class ProposeFixtureInput(ToolInput):
    workflow: str = Field(description=_WORKFLOW)
    step: str = Field(description=_STEP)
    name: str = Field(description="the case name (lowercase letters, digits, '.', '-', '_')")
    inputs: dict[str, object] = Field(description=_INPUTS)
    evaluation_time: str | None = Field(None, description=_AT)
    seed: int | None = Field(None, description="the seed for sampling (statistics)")


def described(model: type[ToolInput], name: str, **constraints) -> object:
    """A pydantic Field with the declared description of `model`'s argument `name`: MCP's
    tool signatures take their argument descriptions from here."""
    return Field(description=model.model_fields[name].description, **constraints)


#: Each language-model tool's name (package.json) and its input.
AGENT_TOOL_INPUTS: dict[str, type[ToolInput]] = {
    "stepsmith_check": CheckInput, "stepsmith_reach": ReachInput,
    "stepsmith_explain_rule": ExplainRuleInput, "stepsmith_run_step": RunStepInput,
    "stepsmith_test": TestInput, "stepsmith_propose_fixture": ProposeFixtureInput}
