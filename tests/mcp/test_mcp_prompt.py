"""The `draft_workflow_step` prompt over MCP (SDK client, stdio): each rule it names comes with
its accepted fix whole (a first line alone can drop what makes it accepted: SS501's `seed=`),
its argument is described, and it has a title."""

from __future__ import annotations

import textwrap

import agent_kit as ak
import pytest
from stepsmith.runner import rules
from stepsmith.runner.mcp.prompt import OFTEN_BROKEN

pytestmark = pytest.mark.asyncio(loop_scope="function")


async def test_the_prompt_shows_each_accepted_fix_whole(tmp_path):
    async with ak.assistant(tmp_path) as a:
        listed = (await a.client.list_prompts()).prompts
        got = await a.client.get_prompt("draft_workflow_step", {"task": "match invoices"})
    text = got.messages[0].content.text
    fixes = [rules.get(c) for c in OFTEN_BROKEN if rules.get(c).fix]
    assert len(fixes) >= 10
    for r in fixes:
        assert textwrap.indent(r.fix.strip("\n"), "    ") in text, (r.code, r.fix)
    assert "samples(10, seed=seed)" in text  # the part of SS501's fix that makes it accepted
    (prompt,) = [p for p in listed if p.name == "draft_workflow_step"]
    assert prompt.title
    (arg,) = prompt.arguments
    assert arg.name == "task" and arg.required and arg.description
