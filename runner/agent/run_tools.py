"""The tools of `stepsmith mcp` that run step code: run_step, test, propose_fixture.

Always offline, always sandboxed (the same use cases as `stepsmith run`, `test`, `record`):
granted connections receive placeholder credentials, a `public_egress` step is never run with
new inputs (its recorded fixtures are served by `test`), and nothing an agent does writes an
expectation: `propose_fixture` writes a *pending* change that a person accepts with
`stepsmith review` or the editor's pending view. There is no way to ask for a live run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field
from stepsmith.runner.agent.scope import Scope
from stepsmith.runner.agent.suite_answer import PAGE, TestOutput, answer
from stepsmith.runner.app import cases as suite
from stepsmith.runner.app.record import RecordRequest, propose
from stepsmith.runner.app.step import StepRequest, execute, prepare
from stepsmith.runner.errors import Refused

__all__ = ["PAGE", "propose_fixture", "run_step", "test"]


class TracebackLine(BaseModel):
    file: str
    line: int | None
    function: str | None = None
    text: str | None = None


class StepError(BaseModel):
    type: str
    message: str
    traceback: list[TracebackLine] = Field(
        default_factory=list, description="frames of the step's own file only")


class EffectIntent(BaseModel):
    effect: str
    key: Any = None
    payload: Any = None


class RunStepOutput(BaseModel):
    status: str = Field(description="ok | error | refused | cpu_limit | wall_limit | "
                        "memory_limit | output_limit | input_too_large | unavailable")
    output: Any = Field(None, description="the step's return value (status ok)")
    error: StepError | None = Field(None, description="status error: the exception")
    problems: list[dict[str, Any]] = Field(
        default_factory=list, description="status refused: the rules the code breaks")
    effects: list[EffectIntent] = Field(
        default_factory=list, description="effect intents: recorded, never performed")
    stdout: str = Field("", description="what the step printed (capped, redacted)")
    message: str = Field("", description="one line for every status but ok")
    evaluation_time: str | None = Field(
        None, description="the instant the step's clock was pinned to, with its offset (a "
        "time given without one is wall time in the workflow's zone)")
    duration_ms: float = 0.0


class ProposedFixture(BaseModel):
    pending: str = Field(description="the pending change written, relative to the root")
    fixture: str = Field(description="the fixture it would create or replace once accepted")
    replaces_existing: bool
    status: str = Field(description="the step's result status that became the expectation")
    document: dict[str, Any] = Field(description="the fixture document a person will review")
    review: str = Field(description="the command a person runs to review it")


def run_step(scope: Scope, workflow: str, step: str, inputs: dict[str, Any],
             evaluation_time: str | None = None, seed: int | None = None) -> RunStepOutput:
    """The step's typed result (status, output, error, effects, stdout...), sandboxed."""

    p = prepare(StepRequest(path=str(scope.resolve(workflow)), step=step, inputs=dict(inputs),
                            at=evaluation_time, seed=seed))
    if p.step.network == "public_egress":
        raise Refused(f"{step} is a public_egress step: offline it has no network, and an "
                           "agent never runs it live; its recorded fixtures are served by `test`")
    res = execute(p, seed=seed, live=False)
    return RunStepOutput(**{k: res[k] for k in RunStepOutput.model_fields if k in res})


def selection_paths(scope: Scope, paths: list[str] | None) -> list[str]:
    """`paths` as the suite takes them, each resolved through the scope (a real path inside a
    root): a node id `PATH::step[::case]` keeps its suffix on the resolved PATH."""
    out = []
    for p in paths or [""]:
        head, sep, rest = p.partition("::")
        out.append(str(scope.resolve(head or None)) + (sep + rest if sep else ""))
    return out


def test(scope: Scope, paths: list[str] | None = None, keywords: list[str] | None = None,
         on_done: Callable[[int, int], None] | None = None,
         stop: threading.Event | None = None, *, full: bool = False, offset: int = 0,
         limit: int = PAGE) -> TestOutput:
    """Run the selected fixtures; the answer sized for a model (suite_answer.py)."""

    req = suite.SuiteRequest(paths=selection_paths(scope, paths),
                             keywords=list(keywords or []))
    total, done = [0], [0]

    def selected(n: int, _final: bool) -> None:  # the total grows as workflows load
        total[0] = n

    def progress(_result) -> None:
        done[0] += 1
        if on_done is not None:
            on_done(done[0], total[0])

    outcome = suite.run_request(req, on_selected=selected, on_done=progress, stop=stop)
    return answer(scope, outcome, full=full, offset=max(0, offset), limit=limit)


def propose_fixture(scope: Scope, workflow: str, step: str, name: str, inputs: dict[str, Any],
                    evaluation_time: str | None = None, seed: int | None = None
                    ) -> ProposedFixture:
    """Run the step offline and write its result as a pending new (or replacing) fixture."""

    req = RecordRequest(StepRequest(path=str(scope.resolve(workflow)), step=step,
                                    inputs=dict(inputs), at=evaluation_time, seed=seed), name)
    change, d = propose(req, source="agent")
    where = scope.shown(d.workflow.dir)
    return ProposedFixture(pending=scope.shown(change.path), fixture=scope.shown(d.target),
                           replaces_existing=change.fixture_sha256 is not None,
                           status=d.result.get("status", ""), document=d.document,
                           review=f"stepsmith review {where}")
