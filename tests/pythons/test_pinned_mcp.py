"""MCP (`stepsmith mcp`, the official SDK's client over stdio): mixed pins in one `test`, a
step run on its pinned 3.13 from a 3.11 server, `check` with each pin's grammar, and a
version that is not installed a clear stop. Real sandbox."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from pythons_kit import ADA, NEW_SYNTAX_LINE, isolated_env, workflow

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.usefixtures("sandbox")]

OLD_SYNTAX = '''\
def label(record):
    tags = ", ".join(record["tags"])
    return "%s (%s): %s" % (record["name"], tags, record["x"] * 2.0 + 1.0)
'''


def server(root: Path, env: dict) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "stepsmith.runner.cli", "mcp", str(root)],
                                 cwd=str(root), env=env)


@pytest.fixture
def ws(tmp_path) -> Path:
    root = tmp_path / "ws"
    workflow(root, "a311", "3.11", OLD_SYNTAX, fixtures=ADA)
    workflow(root, "b313", "3.13", fixtures=ADA)
    workflow(root, "c311", "3.11", fixtures=ADA)  # newer syntax on an older pin
    return root


async def test_mixed_pins_check_and_test_through_mcp(ws, tmp_path, py313):
    env = isolated_env(tmp_path, STEPSMITH_PYTHONS=f"3.13={py313}", STEPSMITH_NO_CACHE="1")
    async with Client(server(ws, env)) as client:
        checked = await client.call_tool("check", {"paths": ["."]})
        tested = await client.call_tool("test", {"paths": ["a311", "b313"]})
        ran = await client.call_tool("run_step", {
            "workflow": "b313", "step": "one", "inputs": ADA["ada"]["inputs"]})
    assert not checked.is_error, checked.content
    problems = checked.structured_content["problems"]
    assert [(Path(p["path"]).parts[0], p["code"], p["line"]) for p in problems] == [
        ("c311", "SS001", NEW_SYNTAX_LINE)]
    assert not tested.is_error, tested.content
    answer = tested.structured_content
    assert answer["verdict"] == "passed" and answer["summary"]["passed"] == 2
    assert sorted(i.split("::")[0] for i in answer["passed"]) == ["a311", "b313"]
    assert not ran.is_error, ran.content
    assert ran.structured_content["status"] == "ok"
    assert ran.structured_content["output"] == ADA["ada"]["expected"]["output"]


async def test_a_missing_version_is_a_clear_stop_through_mcp(ws, tmp_path):
    env = isolated_env(tmp_path, STEPSMITH_NO_CACHE="1")  # no 3.13 here
    async with Client(server(ws, env)) as client:
        checked = await client.call_tool("check", {"paths": ["b313"]})
        ran = await client.call_tool("run_step", {
            "workflow": "b313", "step": "one", "inputs": ADA["ada"]["inputs"]})
    (p,) = checked.structured_content["problems"]
    assert p["code"] == "SM501" and "uv python install 3.13" in p["message"]
    assert ran.is_error
    text = " ".join(c.text for c in ran.content if getattr(c, "text", None))
    assert "Python 3.13 (the workflow's `python:`) is not installed here" in text, text
    assert "uv python install 3.13" in text
