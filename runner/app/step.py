"""One step, once: the use case behind `stepsmith run` and `stepsmith record` (and the
server's record command): load the workflow, check the request, run the step in a sandbox."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from stepsmith.runner.app.workflow import (
    build_inputs,
    clock_timezone,
    invoke,
    load_workflow,
    pin_problem,
    result_dict,
    sandbox_status,
    step_code,
    unknown_step_message,
)
from stepsmith.runner.errors import InvokeError, Refused, SandboxUnavailable, UsageError
from stepsmith.runner.fixtures.command_inputs import check_forbidden_inputs, parse_at, read_inputs

if TYPE_CHECKING:
    from stepsmith.runner.app.workflow import LoadedWorkflow, StepCode
    from stepsmith.runner.manifest.model import Step


@dataclass(frozen=True)
class StepRequest:
    path: str  # workflow folder or manifest
    step: str
    inputs: str | dict  # a JSON file, "-" (stdin), or the inputs themselves
    at: str | None = None  # evaluation time, ISO 8601
    seed: int | None = None
    live: bool = False


@dataclass
class PreparedStep:
    workflow: LoadedWorkflow
    step: Step
    code: StepCode
    given: dict  # the inputs as given (what a fixture stores)
    inputs: dict  # with the manifest's literals filled in
    at: str | None


def prepare(req: StepRequest) -> PreparedStep:
    """Everything checked before anything runs: UsageError for a bad request, Refused for a
    workflow with check problems or forbidden inputs."""

    lw = load_workflow(req.path)
    # a time without an offset is wall time in the workflow's zone, as its schedule
    at = parse_at(req.at, clock_timezone(lw))
    why = pin_problem(lw)  # first: no interpreter is a stop of its own (exit 2), with the fix
    if why:
        raise UsageError(why)
    if not lw.ok:
        raise Refused("the workflow has check problems; fix them first:\n"
                      + "\n".join("  " + x for x in lw.error_lines()))
    step = lw.step(req.step)
    if step is None:
        raise UsageError(unknown_step_message(req.step, lw.step_ids, lw.shown))
    given = read_inputs(req.inputs) if isinstance(req.inputs, str) else dict(req.inputs)
    check_forbidden_inputs(given)
    try:
        inputs = build_inputs(step, given)
    except InvokeError as exc:
        if given or not isinstance(req.inputs, dict) or "no value for" not in str(exc):
            raise
        raise InvokeError(f"{exc}; give them with --inputs FILE") from exc  # what to do
    code = step_code(lw, step)
    return PreparedStep(lw, step, code, given, inputs, at)


def ensure_sandbox() -> None:
    ok, why = sandbox_status()
    if not ok:
        raise SandboxUnavailable(f"the sandbox is unavailable: {why}")


def execute(p: PreparedStep, *, seed: int | None = None, live: bool = False,
            connections: dict | None = None) -> dict:
    """The step's typed result as a dict; SandboxUnavailable when it could not run."""

    ensure_sandbox()
    # a live run's missing credential is an InvokeError naming the alias and where it looked
    res = result_dict(invoke(p.workflow, p.code, p.inputs, evaluation_time=p.at, seed=seed,
                             live=live, connections=connections))
    res["evaluation_time"] = p.at  # the instant used, with its offset (None: no pinned time)
    return res
