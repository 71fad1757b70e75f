"""The `test` tool's answer, sized for a model's context: the verdict first, failures and
errors whole (differences, messages, the step's result), passes one line each, the proposals
and changes waiting for a person, paged when large. Built from the one fixture-suite use case
(runner/app/cases.SuiteOutcome); paths and ids relative to the first workspace root.

`full` gives every selected fixture whole, passes included: with `paths` naming one fixture
(`wf::step::case`, or its file) it is the way to ask for one fixture's details.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field
from stepsmith.runner.app.fixture_loop import waiting_sentence

from .scope import Scope

PAGE = 50  # fixtures a page holds by default (failures whole, passes one line)


class FixtureOutcome(BaseModel):
    id: str = Field(description="workflow::step::case (pass it in `paths` to run only it)")
    outcome: Literal["passed", "recorded", "failed", "error"]
    fixture: str | None = Field(description="the fixture file, relative to the first root")
    differences: list[dict[str, Any]] = Field(
        description="expected vs actual, each with its path in the fixture document")
    messages: list[str] = Field(description="why it errored, refusals, notes")
    result: dict[str, Any] | None = Field(
        description="the step's result (status, output, error with traceback, effects, stdout)")
    duration_ms: float


class Waiting(BaseModel):
    id: str
    new: bool = Field(description="a proposed new case (else a changed expectation)")
    source: str = Field(description="who wrote it: agent, test, record")
    pending: str = Field(description="the pending file, relative to the first root")
    fixture: str = Field(description="the fixture accepting it writes")


class Summary(BaseModel):
    passed: int
    recorded: int = Field(description="public_egress steps served from their recording")
    failed: int
    error: int
    total: int
    not_run: int
    seconds: float


class WorkflowState(BaseModel):
    path: str
    ok: bool
    problems: list[str] = Field(description="check problems that keep its fixtures from running")


class TestOutput(BaseModel):
    verdict: Literal["passed", "failed", "nothing_ran"] = Field(
        description="nothing_ran: no fixture was selected to run; never a pass")
    message: str = Field(description="the verdict in one or two sentences, with what to do")
    summary: Summary
    fixtures: list[FixtureOutcome] = Field(
        description="this page's failures and errors whole (every fixture with `full`)")
    passed: list[str] = Field(description="this page's passes, one line each: the id")
    offset: int = Field(description="where this page starts in the run's fixtures")
    next_offset: int | None = Field(
        description="call again with this offset (same paths and k) for the next page")
    workflows: list[WorkflowState]
    pending_written: list[str] = Field(
        description="pending changes this run wrote (failed fixtures' new results)")
    waiting_for_review: list[Waiting] = Field(
        description="proposals and changes a person must accept or reject (stepsmith review)")
    stale: list[str] = Field(description="stale wired fixtures (SF001), as messages")


def _outcome(scope: Scope, r, shown_id: str) -> FixtureOutcome:
    return FixtureOutcome(
        id=shown_id, outcome=r.outcome,
        fixture=scope.shown(r.case.path) if r.case.path else None,
        differences=[d.to_json() for d in r.differences], messages=list(r.messages),
        result=r.result, duration_ms=round(r.duration_ms, 1))


def answer(scope: Scope, outcome, *, full: bool = False, offset: int = 0,
           limit: int = PAGE) -> TestOutput:
    """The answer for one page of `outcome` (a SuiteOutcome)."""

    results = outcome.results
    bad = [r for r in results if r.outcome in ("failed", "error")]
    good = [r for r in results if r.outcome not in ("failed", "error")]
    ordered = bad + good  # what needs the model's attention first
    page = ordered[offset:offset + max(1, limit)]
    nxt = offset + len(page)
    ids = {id(r): _id(scope, r) for r in page}
    fixtures = [_outcome(scope, r, ids[id(r)]) for r in page
                if full or r.outcome in ("failed", "error")]
    passed = [ids[id(r)] + (" (served from its recording)" if r.outcome == "recorded" else "")
              for r in page if not full and r.outcome not in ("failed", "error")]
    counts = outcome.counts
    loop = outcome.loop
    waiting = [Waiting(id=f"{scope.shown(i.workflow_dir)}::{i.change.step_id}::{i.change.case}",
                       new=i.change.is_new, source=i.change.source,
                       pending=scope.shown(i.change.path),
                       fixture=scope.shown(i.change.fixture_path)) for i in loop.waiting]
    where = sorted({scope.shown(i.workflow_dir) for i in loop.waiting})
    waits = waiting_sentence(loop.waiting, where) if loop.waiting else ""
    verdict: Literal["passed", "failed", "nothing_ran"]
    if outcome.ran_nothing:
        verdict = "nothing_ran"
        message = ("no fixture ran: the selection has no fixture to test"
                   + (f"; {waits}" if waits else "; propose one with `propose_fixture`"))
    else:
        verdict = "failed" if outcome.failed else "passed"
        message = (f"{counts['passed']} passed, {counts['failed']} failed, {counts['error']} "
                   f"errors" + (f", {counts['recorded']} served from recordings"
                                if counts["recorded"] else "")
                   + (f", {outcome.not_run} not run" if outcome.not_run else ""))
        if loop.written:
            message += (f"; {len(loop.written)} pending change(s) written for a person to "
                        "review")
        if waits:
            message += f"; {waits}"
    if nxt < len(ordered):
        message += f" (fixtures {offset + 1}-{nxt} of {len(ordered)}: next page offset={nxt})"
    return TestOutput(
        verdict=verdict, message=message,
        summary=Summary(**{k: counts[k] for k in ("passed", "recorded", "failed", "error")},
                        total=len(results), not_run=outcome.not_run,
                        seconds=round(outcome.seconds, 3)),
        fixtures=fixtures, passed=passed, offset=offset,
        next_offset=nxt if nxt < len(ordered) else None,
        workflows=[WorkflowState(path=scope.shown(w.dir), ok=w.ok, problems=w.error_lines())
                   for w in outcome.selection.workflows],
        pending_written=[scope.shown(c.path) for c in loop.written],
        waiting_for_review=waiting, stale=[s.message for s in loop.stale])


def _id(scope: Scope, r) -> str:
    """The fixture's node id with its workflow named from the first root (not the server's
    current folder, which the client chose)."""
    c = r.case
    rest = c.id.split("::", 1)[1] if "::" in c.id else c.case
    return f"{scope.shown(c.workflow.dir)}::{rest}"
