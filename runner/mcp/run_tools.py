"""The tools of `stepsmith mcp` that run step code: run_step, test, propose_fixture.

Always offline, always sandboxed (the same use cases as `stepsmith run`, `test`, `record`):
granted connections receive placeholder credentials, a `public_egress` step is never run with
new inputs (its recorded fixtures are served by `test`), and nothing an agent does writes an
expectation: `propose_fixture` writes a *pending* change that a person accepts with
`stepsmith review` or the editor's pending view.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from .scope import Scope

LIVE_REFUSED = ("an agent never runs a step live: runs here are offline and sandboxed, with "
                "placeholder credentials; a person runs live with `stepsmith run --live`")


class AgentRefused(ValueError):
    """What an agent may not do (live runs, egress with new inputs, a bad name)."""


class ProposedFixture(BaseModel):
    pending: str = Field(description="the pending change written, relative to the root")
    fixture: str = Field(description="the fixture it would create or replace once accepted")
    replaces_existing: bool
    status: str = Field(description="the step's result status that became the expectation")
    document: dict[str, Any] = Field(description="the fixture document a person will review")
    review: str = Field(description="the command a person runs to review it")


def _refuse_live(live: bool) -> None:
    if live:
        raise AgentRefused(LIVE_REFUSED)


def run_step(scope: Scope, workflow: str, step: str, inputs: dict[str, Any],
             evaluation_time: str | None = None, seed: int | None = None,
             live: bool = False) -> dict[str, Any]:
    """The step's typed result (status, output, error, effects, stdout...), sandboxed."""
    from stepsmith.runner.app.step import StepRequest, execute, prepare

    _refuse_live(live)
    p = prepare(StepRequest(path=str(scope.resolve(workflow)), step=step, inputs=dict(inputs),
                            at=evaluation_time, seed=seed))
    if p.step.network == "public_egress":
        raise AgentRefused(f"{step} is a public_egress step: offline it has no network, and an "
                           "agent never runs it live; its recorded fixtures are served by `test`")
    return execute(p, seed=seed, live=False)


def test(scope: Scope, paths: list[str] | None = None, keywords: list[str] | None = None,
         on_done: Callable[[int, int], None] | None = None,
         stop: threading.Event | None = None, live: bool = False) -> dict[str, Any]:
    """Every selected fixture's outcome with structured differences: the document
    `stepsmith test --format json` prints."""
    from stepsmith.runner.app import cases as suite

    _refuse_live(live)
    req = suite.SuiteRequest(paths=[str(scope.resolve(p)) for p in (paths or [None])],
                             keywords=list(keywords or []))
    total, done = [0], [0]

    def selected(n: int, _final: bool) -> None:  # the total grows as workflows load
        total[0] = n

    def progress(_result) -> None:
        done[0] += 1
        if on_done is not None:
            on_done(done[0], total[0])

    return suite.run_request(req, on_selected=selected, on_done=progress, stop=stop).to_json()


def propose_fixture(scope: Scope, workflow: str, step: str, name: str, inputs: dict[str, Any],
                    evaluation_time: str | None = None, seed: int | None = None,
                    live: bool = False) -> ProposedFixture:
    """Run the step offline and write its result as a pending new (or replacing) fixture."""
    from stepsmith.runner.app.record import RecordRequest, propose
    from stepsmith.runner.app.step import StepRequest

    _refuse_live(live)
    req = RecordRequest(StepRequest(path=str(scope.resolve(workflow)), step=step,
                                    inputs=dict(inputs), at=evaluation_time, seed=seed), name)
    change, d = propose(req, source="agent")
    where = scope.shown(d.workflow.dir)
    return ProposedFixture(pending=scope.shown(change.path), fixture=scope.shown(d.target),
                           replaces_existing=change.fixture_sha256 is not None,
                           status=d.result.get("status", ""), document=d.document,
                           review=f"stepsmith review {where}")
