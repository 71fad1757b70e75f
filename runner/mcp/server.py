"""The MCP wiring of `stepsmith mcp` (official `mcp` SDK, stdio): tools with JSON-schema'd
inputs and structured outputs, annotations saying which are read-only, progress and
cancellation for fixture runs, the dialect and the rules as resources, and one prompt.

Each handler is thin: resolve the scope (the client's roots, else the folder given), run the
use case off the event loop, return its typed result. Errors come back as tool errors with the
reason, never as a crash of the server.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Annotated, Any

import functools

import anyio
import anyio.lowlevel
from mcp.server.mcpserver import Context, ListRoots, MCPServer, Resolve
from mcp_types import ListRootsResult
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from stepsmith.runner.mutants import mcp_tool as mutants_tool

from . import run_tools, tools
from .scope import Scope

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

Paths = Annotated[list[str] | None, Field(description="files or folders inside the workspace "
                                           "(default: the whole workspace)")]
Inputs = Annotated[dict[str, Any], Field(description="parameter -> value; inputs the manifest "
                                         "gives as literals may be left out")]
At = Annotated[str | None, Field(description="the pinned evaluation time, ISO 8601 with offset")]


def answered(fn):
    """A refusal or a bad request the tool foresaw (outside the roots, live, a usage error, a
    workflow with check problems) reaches the agent as a tool error with its reason; anything
    else is a crash the SDK reports without our internals."""
    from stepsmith.runner.app.errors import AppError

    from .run_tools import AgentRefused
    from .scope import OutsideRoots

    @functools.wraps(fn)
    async def wrapper(*args, **kwargs):
        try:
            return await fn(*args, **kwargs)
        except (OutsideRoots, AgentRefused, AppError, ValueError) as exc:
            raise ToolError(str(exc)) from exc

    return wrapper


def client_roots(ctx: Context) -> ListRoots | None:
    """Resolver: ask for the client's roots when it declares the capability (the SDK sends
    `roots/list` the way the negotiated protocol wants: mid-call, or as an input request)."""
    caps = ctx.client_capabilities
    return ListRoots() if caps is not None and caps.roots is not None else None


Roots = Annotated[ListRootsResult | None, Resolve(client_roots)]


def _scope(roots: ListRootsResult | None, fallback: Scope) -> Scope:
    """The client's roots when it declared any, else the folder `stepsmith mcp` was given."""
    if roots is None:
        return fallback
    scope = Scope.from_uris(r.uri for r in roots.roots)
    return scope if scope.roots else fallback


def build(root: Path) -> MCPServer:
    from stepsmith import __version__

    fallback = Scope.of([root])
    server = MCPServer("stepsmith", title="stepsmith", version=__version__,
                       instructions=INSTRUCTIONS)

    @server.tool(annotations=READ_ONLY, structured_output=True)
    @answered
    async def check(roots: Roots, paths: Paths = None) -> tools.CheckOutput:
        """Check workflow manifests and step code: every problem with its rule code, position,
        step, rule URL and fix edits (apply the first, preferred fix; `safe` ones are certain)."""
        scope = _scope(roots, fallback)
        return await anyio.to_thread.run_sync(lambda: tools.check(scope, paths))

    @server.tool(annotations=READ_ONLY, structured_output=True)
    @answered
    async def reach(roots: Roots, path: Annotated[str | None, Field(
            description="a workflow folder or manifest (default: the workspace)")] = None,
    ) -> tools.ReachOutput:
        """What each step is permitted to reach (network, connections, sources, effects):
        every step, also those reaching nothing. Not a review of what the code does."""
        scope = _scope(roots, fallback)
        return await anyio.to_thread.run_sync(lambda: tools.reach(scope, path))

    @server.tool(annotations=READ_ONLY, structured_output=True)
    @answered
    async def explain_rule(code: Annotated[str, Field(description="e.g. SS101, SM205")],
                           ) -> tools.RuleOut:
        """A rule's summary, rationale, a snippet it refuses and a close one it accepts."""
        return tools.explain_rule(code)

    @server.tool(annotations=READ_ONLY, structured_output=True)
    @answered
    async def schema() -> dict[str, Any]:
        """The JSON Schema of workflow.yaml."""
        return tools.schema()

    @server.tool(annotations=RUNS, structured_output=True)
    @answered
    async def run_step(roots: Roots, workflow: Annotated[str, Field(
            description="the workflow folder or manifest")], step: str, inputs: Inputs,
            evaluation_time: At = None, seed: int | None = None,
            live: Annotated[bool, Field(description="always refused: agents never run "
                                        "live")] = False) -> dict[str, Any]:
        """Run one step once in the sandbox, offline (placeholder credentials, no network):
        its typed result (status, output, error with traceback, effect intents, stdout)."""
        run_tools._refuse_live(live)
        scope = _scope(roots, fallback)
        return await anyio.to_thread.run_sync(
            lambda: run_tools.run_step(scope, workflow, step, inputs, evaluation_time, seed))

    @server.tool(annotations=RUNS, structured_output=True)
    @answered
    async def test(ctx: Context, roots: Roots, paths: Paths = None,
                   k: Annotated[list[str] | None, Field(
            description="pytest-style -k expressions (any of them)")] = None,
            live: Annotated[bool, Field(description="always refused")] = False,
            ) -> dict[str, Any]:
        """Run the recorded fixtures in fresh sandboxes: each outcome with structured
        differences (the document `stepsmith test --format json` prints). Reports progress;
        cancelling starts no new fixture."""
        run_tools._refuse_live(live)
        scope = _scope(roots, fallback)
        stop = threading.Event()
        token = anyio.lowlevel.current_token()  # fixtures finish on the runner's own threads

        def progress(done: int, total: int) -> None:
            anyio.from_thread.run(ctx.report_progress, done, total, token=token)

        try:
            return await anyio.to_thread.run_sync(
                lambda: run_tools.test(scope, paths, k, on_done=progress, stop=stop),
                abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            stop.set()  # running sandboxes end by their limits; nothing new starts
            raise

    @server.tool(annotations=RUNS, structured_output=True)
    @answered
    async def mutants(ctx: Context, roots: Roots, paths: Paths = None,
                      steps: Annotated[list[str] | None, Field(
                          description="only these step ids")] = None,
                      k: Annotated[list[str] | None, Field(
                          description="pytest-style -k expressions (any of them)")] = None,
                      ) -> mutants_tool.MutantsOutput:
        """Fixture strength: change each step in small ways (boundaries, arithmetic, rounding,
        constants, dropped effects) and run the fixtures that reach each change in fresh
        sandboxes. A survivor is a change no fixture notices; its `hint` says which fixture
        to propose. Offline; writes nothing. Reports progress; cancelling starts nothing new."""
        scope = _scope(roots, fallback)
        stop = threading.Event()
        token = anyio.lowlevel.current_token()

        def progress(done: int, total: int) -> None:
            anyio.from_thread.run(ctx.report_progress, done, total, token=token)

        try:
            return await anyio.to_thread.run_sync(
                lambda: mutants_tool.mutants(scope, paths, steps, k, on_progress=progress,
                                             stop=stop), abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            stop.set()
            raise

    @server.tool(annotations=PROPOSES, structured_output=True)
    @answered
    async def propose_fixture(roots: Roots, workflow: str, step: str, name: Annotated[str, Field(
            description="the case name (letters, digits, - and _)")], inputs: Inputs,
            evaluation_time: At = None, seed: int | None = None,
            live: Annotated[bool, Field(description="always refused")] = False,
            ) -> run_tools.ProposedFixture:
        """Run the step offline and propose its result as a fixture: written only as a
        PENDING change under .stepsmith/pending/, which a person reviews and accepts."""
        run_tools._refuse_live(live)
        scope = _scope(roots, fallback)
        return await anyio.to_thread.run_sync(lambda: run_tools.propose_fixture(
            scope, workflow, step, name, inputs, evaluation_time, seed))

    @server.resource("stepsmith://dialect", mime_type="application/json",
                     description="the allowed modules and their public names")
    def dialect_resource() -> str:
        return json.dumps(tools.dialect(), indent=1)

    @server.resource("stepsmith://rules", mime_type="application/json",
                     description="every rule: code, summary, rationale, example, fix, url")
    def rules_resource() -> str:
        from stepsmith.runner import rules

        return json.dumps([tools.explain_rule(r.code).model_dump() for r in rules.all_rules()],
                          indent=1)

    @server.resource("stepsmith://schema", mime_type="application/schema+json",
                     description="the JSON Schema of workflow.yaml")
    def schema_resource() -> str:
        return json.dumps(tools.schema(), indent=1)

    @server.prompt(name="draft_workflow_step",
                   description="Draft one step function and its manifest entry in the dialect")
    def draft_workflow_step(task: str) -> str:
        from .prompt import draft_step_prompt

        return draft_step_prompt(task)

    return server
