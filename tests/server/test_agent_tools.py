"""stepsmith/agentTool: the language-model tools' answers are the MCP tools' own structured
results; the tools that run code are refused in an untrusted workspace."""

from __future__ import annotations

import asyncio
import json
import shutil

import pytest
import pytest_lsp
from lsp_kit import CONFIG, EXAMPLES, initialize, plain, push_capabilities
from pygls.exceptions import JsonRpcException

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=CONFIG, scope="module", params=[True, False], ids=["trusted", "untrusted"])
async def agent_client(lsp_client: pytest_lsp.LanguageClient, request, tmp_path_factory):
    ws = tmp_path_factory.mktemp("agent") / "ws"
    shutil.copytree(EXAMPLES, ws, ignore=shutil.ignore_patterns(".stepsmith"))
    step = ws / "invoice-matching" / "steps" / "match.py"
    step.write_text("import os\n" + step.read_text())
    lsp_client.ws, lsp_client.trusted = ws, request.param
    await initialize(lsp_client, ws, push_capabilities(),
                     {"stepsmith": {"runOnSave": False, "runOnType": False, "trusted": request.param}})
    yield
    await lsp_client.shutdown_session()


async def tool(client, name, args):
    return plain(await asyncio.wait_for(client.protocol.send_request_async(
        "stepsmith/agentTool", {"tool": name, "input": json.dumps(args)}), 120))


async def test_check_is_the_mcp_tools_result(agent_client):
    from stepsmith.runner.agent import tools
    from stepsmith.runner.agent.scope import Scope

    client = agent_client
    got = await tool(client, "check", {"paths": ["invoice-matching"]})
    want = tools.check(Scope.of([client.ws]), ["invoice-matching"]).model_dump()
    assert got == want and [p["code"] for p in got["problems"]] == ["SS101"]
    assert got["problems"][0]["fixes"][0]["edits"]
    reach = await tool(client, "reach", {})
    assert {w["workflow"] for w in reach["workflows"]} == {"invoice-matching", "payment-chasing"}
    rule = await tool(client, "explain_rule", {"code": "SS101"})
    assert rule["code"] == "SS101" and rule["page"].startswith("# SS101 ")


async def test_running_tools_need_trust_and_every_refusal_is_an_error(agent_client):
    client = agent_client
    run = {"workflow": "payment-chasing", "step": "overdue",
           "inputs": {"receivables": []}, "evaluation_time": "2026-12-01T07:00:00+00:00"}
    if client.trusted:
        res = await tool(client, "run_step", run)
        assert res["status"] == "ok" and res["output"]["overdue"] == []
        assert res["evaluation_time"] == "2026-12-01T07:00:00+00:00"
        tested = await tool(client, "test", {"paths": ["payment-chasing"]})
        assert tested["verdict"] == "passed" and tested["passed"] and not tested["fixtures"]
        with pytest.raises(JsonRpcException, match="offset must be"):
            await tool(client, "test", {"offset": -1})
    else:
        with pytest.raises(JsonRpcException, match="not trusted"):
            await tool(client, "run_step", run)
        with pytest.raises(JsonRpcException, match="not trusted"):
            await tool(client, "propose_fixture", {**run, "name": "x"})
    with pytest.raises(JsonRpcException, match="outside the workspace roots"):
        await tool(client, "check", {"paths": ["/etc"]})
    with pytest.raises(JsonRpcException, match="no agent tool"):
        await tool(client, "accept", {})
    with pytest.raises(JsonRpcException, match="not JSON"):
        await asyncio.wait_for(client.protocol.send_request_async(
            "stepsmith/agentTool", {"tool": "check", "input": "{"}), 30)
