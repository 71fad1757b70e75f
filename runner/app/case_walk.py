"""The engine's walk of a workflow case: its steps in wiring order, each step's inputs built
from the case's sources and the outputs of the steps before it, its request (as the results
store hashes it), and its run: the case's recording for a ``public_egress`` step offline,
else the sandbox with the step's credentials (real ones only in a live run).

`stepsmith run-workflow` (which stores) and `stepsmith record --case` (which writes fixtures)
both walk a case through here; they differ only in what they do with each step's answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from stepsmith.runner.app.workflow import (
    LoadedWorkflow,
    StepCode,
    build_inputs,
    invoke,
    load_granted,
    result_dict,
    step_code,
)
from stepsmith.runner.errors import InvokeError, Refused, SandboxUnavailable
from stepsmith.runner.model.refs import StepOutputRef
from stepsmith.runner.sandbox.boundary import problem
from stepsmith.runner.store.canonical import build_request, request_sha256

if TYPE_CHECKING:
    from stepsmith.runner.fixtures.model import WorkflowCase
    from stepsmith.runner.manifest.model import Step, Workflow


def topological_steps(workflow: Workflow) -> list[Step]:
    """Steps in manifest order, moved after the steps they are wired to (stable Kahn)."""
    steps = list(workflow.steps)
    ids = {s.id for s in steps}
    deps = {s.id: {r.step for r in s.input_refs.values()
                   if isinstance(r, StepOutputRef) and r.step in ids} for s in steps}
    done: set[str] = set()
    order: list[Step] = []
    while len(order) < len(steps):
        progressed = False
        for s in steps:
            if s.id not in done and deps[s.id] <= done:
                order.append(s)
                done.add(s.id)
                progressed = True
                break
        if not progressed:
            raise Refused("the step wiring has a cycle")  # check_workflow reports it first
    return order


@dataclass
class Turn:
    """One step of the walk. `error`: its code or inputs could not be prepared (then `code`
    and `request` are None); `upstream`: the steps wired into it, sorted."""

    step: Step
    upstream: list[str]
    code: StepCode | None = None
    inputs: dict[str, Any] = field(default_factory=dict)
    request: dict[str, Any] | None = None
    error: str = ""

    def prepared(self) -> tuple[StepCode, dict[str, Any], str] | None:
        """(code, request, the request's sha256) of a turn ready to run, else None."""
        if self.code is None or self.request is None:
            return None
        return self.code, self.request, request_sha256(self.request)


@dataclass
class Ran:
    """A step's answer: the result (a recording is served as `{"status": "ok", ...}`) and
    the credentials it was handed (to keep them out of anything written)."""

    result: dict[str, Any]
    granted: dict[str, str]
    served_from: str  # "recording" | "execution"


class CaseWalk:
    """Iterate for the steps in wiring order; `outputs` holds what the caller kept of the
    steps before (it decides: an accepted output, a reused one, or none)."""

    def __init__(self, lw: LoadedWorkflow, case: str, wc: WorkflowCase, *, live: bool = False):
        if lw.workflow is None:  # (its callers refuse a workflow with check problems first)
            raise Refused(f"{lw.shown}: the manifest does not validate; no case runs")
        self.lw, self.case, self.wc, self.live = lw, case, wc, live
        self.workflow: Workflow = lw.workflow
        self.outputs: dict[str, Any] = {}

    def __iter__(self) -> Iterator[Turn]:
        for step in topological_steps(self.workflow):
            yield self._turn(step)

    def _turn(self, step: Step) -> Turn:
        ups = sorted({r.step for r in step.input_refs.values() if isinstance(r, StepOutputRef)})
        turn = Turn(step, ups)
        if any(u not in self.outputs for u in ups):
            return turn  # no request: the caller says why (skipped, or stopped before)
        wc = self.wc
        try:
            turn.code = step_code(self.lw, step)
            turn.inputs = build_inputs(step, {}, sources=wc.sources, outputs=self.outputs)
        except InvokeError as exc:
            turn.code, turn.error = None, str(exc)
            return turn
        why = next(filter(None, (problem(v, str(k)) for k, v in turn.inputs.items())), None)
        if why is not None:  # cannot cross as JSON (nor be hashed or stored): typed, here
            turn.code, turn.error = None, f"InputError: input {why}; nothing stored"
            return turn
        turn.request = build_request(source=turn.code.raw, function=turn.code.function,
                                     inputs=turn.inputs, evaluation_time=wc.evaluation_time,
                                     seed=wc.seed, timezone=self.workflow.clock_timezone)
        return turn

    def run(self, turn: Turn) -> Ran:
        """The step's answer: InvokeError when it cannot be had (no recording offline, a
        missing credential live), SandboxUnavailable when the sandbox cannot start."""
        step, wc = turn.step, self.wc
        assert turn.code is not None, "run() needs a prepared turn"
        if step.network == "public_egress" and not self.live:
            if step.id not in wc.recorded:
                raise InvokeError(f"public_egress step {step.id!r} has no recorded output in "
                                  f"case {self.case!r} (add recorded.{step.id}, or --live)")
            return Ran({"status": "ok", "output": wc.recorded[step.id], "effects": []}, {},
                       "recording")
        granted = load_granted(self.lw, step, live=self.live)  # live: the real ones
        res = result_dict(invoke(self.lw, turn.code, turn.inputs,
                                 evaluation_time=wc.evaluation_time, seed=wc.seed,
                                 live=self.live, connections=granted))
        if res.get("status") == "unavailable":
            raise SandboxUnavailable("the sandbox is unavailable: " + str(
                res.get("error") or res.get("message") or "sandbox unavailable"))
        return Ran(res, granted, "execution")
