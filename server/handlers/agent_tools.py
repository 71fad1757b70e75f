"""stepsmith/agentTool {tool, input}: the language-model tools the VS Code extension registers,
answered with the very tools `stepsmith mcp` serves (runner/agent), scoped to the workspace
folders. Read-only tools answer in any workspace; the ones that run step code or write a
pending change only in a trusted one. Everything runs off the event loop.
`input` is the tool's arguments as JSON text: pygls turns request objects into namedtuples,
which would rename keys that are not identifiers (a step's inputs may have any keys)."""

from __future__ import annotations

import json

from stepsmith.server.handlers.common import invalid_params, param, require_trust, safe

READ_ONLY = ("check", "reach", "explain_rule")
RUNS = ("run_step", "test", "propose_fixture")


def answer(scope, tool: str, args: dict):
    """The tool's structured result as plain JSON (what MCP's structured content holds)."""
    from stepsmith.runner.agent import run_tools, tools

    if tool == "check":
        out = tools.check(scope, args.get("paths"))
    elif tool == "reach":
        out = tools.reach(scope, args.get("path"))
    elif tool == "explain_rule":
        out = tools.explain_rule(str(args.get("code", "")))
    elif tool == "run_step":
        out = run_tools.run_step(scope, args["workflow"], args["step"],
                                 dict(args.get("inputs") or {}), args.get("evaluation_time"),
                                 args.get("seed"))
    elif tool == "test":
        out = run_tools.test(scope, args.get("paths"), args.get("k"),
                             full=bool(args.get("full")), offset=_count(args, "offset", 0),
                             limit=_count(args, "limit", run_tools.PAGE))
    else:
        out = run_tools.propose_fixture(scope, args["workflow"], args["step"], args["name"],
                                        dict(args.get("inputs") or {}),
                                        args.get("evaluation_time"), args.get("seed"))
    return out.model_dump(mode="json")


def _count(args: dict, key: str, default: int) -> int:
    value = args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{key} must be a whole number >= 0")
    return value


def register(ls) -> None:
    @ls.feature("stepsmith/agentTool")
    @safe
    async def agent_tool(ls, params):
        from stepsmith.runner.agent.scope import Scope
        from stepsmith.runner.errors import StepsmithError

        tool = param(params, "tool")
        if tool not in READ_ONLY + RUNS:
            raise invalid_params(f"no agent tool {tool!r}; tools: {', '.join(READ_ONLY + RUNS)}")
        try:
            args = json.loads(param(params, "input") or "{}")
        except ValueError as exc:
            raise invalid_params(f"{tool}: input is not JSON: {exc}") from None
        if not isinstance(args, dict):
            raise invalid_params(f"{tool}: input must be a JSON object")
        if tool in RUNS:
            require_trust(ls)
        await ls.wait_workspace_ready()
        scope = Scope.of(ls.session.snapshot().index.folders)
        try:
            return await ls.off_loop(lambda: answer(scope, tool, args))
        except (StepsmithError, ValueError, KeyError) as exc:
            raise invalid_params(f"{tool}: {exc}") from None
