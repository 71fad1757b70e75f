"""`test` on a workflow with no fixture but proposals waiting for review is not green: the MCP
tool (SDK client, stdio) and the CLI both say no fixture ran and list the proposals with the
command a person runs. Real sandbox."""

from __future__ import annotations

import json

import agent_kit as ak
import pytest
import pytest_asyncio

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.usefixtures("sandbox")]


@pytest_asyncio.fixture(loop_scope="function")
async def proposed(tmp_path):
    """A fresh workflow whose only fixture was removed, and three proposals from MCP."""
    root = ak.fresh_workspace(tmp_path)
    (root / "wf" / "fixtures" / "total" / "example.json").unlink()
    async with ak.assistant(root) as a:
        for n in ("one", "two", "three"):
            await a.ok("propose_fixture", {
                "workflow": "wf", "step": "total", "name": n,
                "inputs": {"invoices": [{"id": n, "amount": "1.00"}]}})
    return root


async def test_mcp_test_with_nothing_to_run_says_so_and_lists_the_proposals(proposed):
    async with ak.assistant(proposed) as a:
        done = await a.call("test", {"paths": ["wf"]})
    # not a green answer: the tool could not do what it was asked (run fixtures)
    assert done.is_error, done.text
    assert "no fixture ran" in done.text
    assert "3 proposed fixtures wait for review: stepsmith review wf" in done.text
    out = done.structured
    assert out["verdict"] == "nothing_ran" and out["summary"]["total"] == 0
    assert sorted(w["id"] for w in out["waiting_for_review"]) == [
        "wf::total::one", "wf::total::three", "wf::total::two"]
    assert {w["pending"] for w in out["waiting_for_review"]} == {
        f"wf/.stepsmith/pending/total/{n}.json" for n in ("one", "two", "three")}


async def test_cli_test_with_nothing_to_run_says_so_and_lists_the_proposals(proposed):
    p = ak.cli(proposed, "test", "wf")
    assert "no fixture ran" in p.stdout, p.stdout
    assert "3 proposed fixtures wait for review: stepsmith review wf" in p.stdout, p.stdout
    j = ak.cli(proposed, "test", "--format", "json", "wf")
    doc = json.loads(j.stdout)
    assert doc["summary"]["total"] == 0
    assert sorted(w["id"] for w in doc["waiting_for_review"]) == [
        "wf::total::one", "wf::total::three", "wf::total::two"]
    # a run that did run fixtures still mentions what waits (a person has something to do)
    (proposed / "wf" / "fixtures" / "total").mkdir(exist_ok=True)
    ak.cli(proposed, "review", "--accept", "-k", "one", "wf")
    ran = ak.cli(proposed, "test", "wf")
    assert ran.returncode == 0 and "1 passed" in ran.stdout
    assert "2 proposed fixtures wait for review: stepsmith review wf" in ran.stdout, ran.stdout
