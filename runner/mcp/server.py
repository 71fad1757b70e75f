"""The MCP wiring of `stepsmith mcp` (official `mcp` SDK, stdio): tools with JSON-schema'd
inputs and typed structured outputs, a title and annotations on each, progress and
cancellation for fixture runs; resources and the prompt (resources.py).

Each handler is thin: resolve the scope (the client's roots, bounded by FOLDER when one was
given), run the use case off the event loop, return its typed result. A refusal comes back as
a tool error saying why; anything else is a crash the SDK reports without our internals.
Answers carry their structured content and, as the protocol asks, the same JSON as text
(compact: the answer is sized for a model's context).
"""

from __future__ import annotations

import functools
import inspect
import json
import threading
from pathlib import Path
from typing import Annotated, Any

import anyio
import anyio.lowlevel
from mcp.server.mcpserver import Context, ListRoots, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from mcp_types import CallToolResult, ListRootsResult, TextContent
from pydantic import BaseModel, Field
from stepsmith.runner.agent import mutants_tool, run_tools, tools
from stepsmith.runner.agent.scope import Scope
from stepsmith.runner.agent.suite_answer import PAGE, TestOutput
from stepsmith.runner.app.shapes import (
    CheckInput,
    ExplainRuleInput,
    ProposeFixtureInput,
    ReachInput,
    RunStepInput,
    TestInput,
    described,
)
from stepsmith.runner.errors import StepsmithError

from stepsmith import __version__

from .resources import register

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)
# runs step code in the sandbox; writes only local state (.stepsmith/: pending, lastfailed)
RUNS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                       open_world_hint=False)
PROPOSES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                           open_world_hint=False)

INSTRUCTIONS = (
    "stepsmith checks and test-runs sandboxed Python workflows (a YAML manifest plus step "
    "functions in a small dialect). Read the `stepsmith://dialect` and `stepsmith://rules` "
    "resources before writing a step; call `check` after every edit and apply the fixes it "
    "returns; run `test` for the recorded fixtures. You may propose a fixture (a pending change "
    "a person reviews); you never accept one, never run live and never see a credential.")

# the arguments' descriptions are the agent tools' declared ones (runner/app/shapes.py)
Paths = Annotated[list[str] | None, described(CheckInput, "paths")]
Inputs = Annotated[dict[str, Any], described(RunStepInput, "inputs")]
At = Annotated[str | None, described(RunStepInput, "evaluation_time")]
Workflow = Annotated[str, described(RunStepInput, "workflow")]
Step = Annotated[str, described(RunStepInput, "step")]
Seed = Annotated[int | None, described(RunStepInput, "seed")]
K = Annotated[list[str] | None, described(TestInput, "k")]


def answered(fn):
    """A refusal or a bad request the tool foresaw (outside the roots, a usage error, a
    workflow with check problems, a path stepsmith will not follow) reaches the agent as a tool
    error with its reason. The description is the docstring without its indentation."""

    @functools.wraps(fn)
    async def wrapper(*args, **kwargs):
        try:
            return await fn(*args, **kwargs)
        except (StepsmithError, ValueError) as exc:
            raise ToolError(str(exc)) from exc
        except OSError as exc:  # a symlinked .stepsmith, a read-only folder: say which
            raise ToolError(f"refused: {exc.strerror or exc}"
                            + (f": {exc.filename}" if exc.filename else "")) from exc

    wrapper.__doc__ = inspect.cleandoc(fn.__doc__ or "")
    return wrapper


def reply(model: BaseModel | dict, *, is_error: bool = False) -> CallToolResult:
    """Structured content plus the same JSON as compact text."""
    data = model.model_dump(mode="json") if isinstance(model, BaseModel) else model
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=data, is_error=is_error)


def client_roots(ctx: Context) -> ListRoots | None:
    """Resolver: ask for the client's roots when it declares the capability (the SDK sends
    `roots/list` the way the negotiated protocol wants: mid-call, or as an input request)."""
    caps = ctx.client_capabilities
    return ListRoots() if caps is not None and caps.roots is not None else None


Roots = Annotated[ListRootsResult | None, Resolve(client_roots)]


def scope_of(roots: ListRootsResult | None, folder: Path, bounded: bool) -> Scope:
    """The client's roots when it declared any (bounded by `folder` when it was given on the
    command line), else `folder`."""
    fallback = Scope.of([folder])
    if roots is None:
        return fallback
    scope = Scope.from_uris(r.uri for r in roots.roots)
    if not scope.roots:
        return fallback
    return scope.bounded_by(fallback.roots[0]) if bounded else scope


def build(root: Path, *, bounded: bool = False) -> MCPServer:
    """The server for `root`; `bounded`: FOLDER was given, so it bounds the client's roots."""

    server = MCPServer("stepsmith", title="stepsmith", version=__version__,
                       instructions=INSTRUCTIONS, log_level="WARNING")

    def scope(roots: ListRootsResult | None) -> Scope:
        return scope_of(roots, root, bounded)

    @server.tool(title="Check workflows", annotations=READ_ONLY, structured_output=True)
    @answered
    async def check(roots: Roots, paths: Paths = None
                    ) -> Annotated[CallToolResult, tools.CheckOutput]:
        """Check workflow manifests, step code and fixtures: every problem with its rule code,
        position, step, rationale and fix edits (apply the first, preferred fix; `safe` ones
        keep the program's meaning). `explain_rule` gives a rule's whole page."""
        s = scope(roots)
        return reply(await anyio.to_thread.run_sync(lambda: tools.check(s, paths)))

    @server.tool(title="What each step can reach", annotations=READ_ONLY,
                 structured_output=True)
    @answered
    async def reach(roots: Roots,
                    path: Annotated[str | None, described(ReachInput, "path")] = None,
                    ) -> Annotated[CallToolResult, tools.ReachReport]:
        """What each step is permitted to reach (network, connections, sources, effects):
        every step, also those reaching nothing. Not a review of what the code does."""
        s = scope(roots)
        return reply(await anyio.to_thread.run_sync(lambda: tools.reach(s, path)))

    @server.tool(title="Explain a rule", annotations=READ_ONLY, structured_output=True)
    @answered
    async def explain_rule(code: Annotated[str, described(ExplainRuleInput, "code")],
                           ) -> Annotated[CallToolResult, tools.RuleOut]:
        """A rule's summary, rationale, a snippet it refuses, a close one it accepts, and its
        documentation page (Markdown) whole."""
        return reply(tools.explain_rule(code))

    @server.tool(title="Manifest schema (authoring view)", annotations=READ_ONLY,
                 structured_output=True)
    @answered
    async def schema() -> Annotated[CallToolResult, dict[str, Any]]:
        """The schema of workflow.yaml as an author needs it: every key, type and required
        field, patterns in words with examples, and an example manifest. Generated from the
        exact JSON Schema, which is the resource stepsmith://schema (time zones:
        stepsmith://timezones)."""
        return reply(tools.schema())

    @server.tool(title="Run a step", annotations=RUNS, structured_output=True)
    @answered
    async def run_step(roots: Roots, workflow: Workflow, step: Step, inputs: Inputs,
                       evaluation_time: At = None, seed: Seed = None,
                       ) -> Annotated[CallToolResult, run_tools.RunStepOutput]:
        """Run one step once in a fresh sandbox, offline (placeholder credentials, no
        network): its typed result (status, output, error with traceback, effect intents,
        stdout) and the evaluation instant used."""
        s = scope(roots)
        return reply(await anyio.to_thread.run_sync(
            lambda: run_tools.run_step(s, workflow, step, inputs, evaluation_time, seed)))

    @server.tool(title="Run the fixtures", annotations=RUNS, structured_output=True)
    @answered
    async def test(ctx: Context, roots: Roots, paths: Paths = None,
                   k: K = None,
                   full: Annotated[bool, described(TestInput, "full")] = False,
                   offset: Annotated[int, described(TestInput, "offset", ge=0)] = 0,
                   limit: Annotated[int, described(TestInput, "limit", ge=1, le=500)] = PAGE,
                   ) -> Annotated[CallToolResult, TestOutput]:
        """Run the recorded fixtures in fresh sandboxes. The verdict first; failures and
        errors whole (structured differences, messages, the step's result); passes one line
        each; the proposals waiting for a person's review. isError is true only when no
        fixture ran (that is never a pass). Reports progress; cancelling starts no new
        fixture."""
        s = scope(roots)
        stop = threading.Event()
        token = anyio.lowlevel.current_token()  # fixtures finish on the runner's own threads

        def progress(done: int, total: int) -> None:
            anyio.from_thread.run(ctx.report_progress, done, total, token=token)

        try:
            out = await anyio.to_thread.run_sync(
                lambda: run_tools.test(s, paths, k, on_done=progress, stop=stop, full=full,
                                       offset=offset, limit=limit),
                abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            stop.set()  # running sandboxes end by their limits; nothing new starts
            raise
        return reply(out, is_error=out.verdict == "nothing_ran")

    @server.tool(title="Find changes no fixture notices", annotations=RUNS,
                 structured_output=True)
    @answered
    async def mutants(ctx: Context, roots: Roots, paths: Paths = None,
                      steps: Annotated[list[str] | None, Field(
                          description="only these step ids")] = None,
                      k: K = None,
                      ) -> Annotated[CallToolResult, mutants_tool.MutantsOutput]:
        """Fixture strength: change each step in small ways (boundaries, arithmetic, rounding,
        constants, dropped effects) and run the fixtures that reach each change in fresh
        sandboxes. A survivor is a change no fixture notices; its `hint` says which fixture
        to propose. Offline; writes nothing. Reports progress; cancelling starts nothing new."""
        s = scope(roots)
        stop = threading.Event()
        token = anyio.lowlevel.current_token()

        def progress(done: int, total: int) -> None:
            anyio.from_thread.run(ctx.report_progress, done, total, token=token)

        try:
            out = await anyio.to_thread.run_sync(
                lambda: mutants_tool.mutants(s, paths, steps, k, on_progress=progress,
                                             stop=stop), abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            stop.set()
            raise
        return reply(out)

    @server.tool(title="Propose a fixture", annotations=PROPOSES, structured_output=True)
    @answered
    async def propose_fixture(roots: Roots, workflow: Workflow, step: Step,
                              name: Annotated[str, described(ProposeFixtureInput, "name")],
                              inputs: Inputs, evaluation_time: At = None, seed: Seed = None,
                              ) -> Annotated[CallToolResult, run_tools.ProposedFixture]:
        """Run the step offline and propose its result as a fixture: written only as a
        PENDING change under .stepsmith/pending/, which a person reviews and accepts with
        `stepsmith review`."""
        s = scope(roots)
        return reply(await anyio.to_thread.run_sync(lambda: run_tools.propose_fixture(
            s, workflow, step, name, inputs, evaluation_time, seed)))

    register(server)
    return server
