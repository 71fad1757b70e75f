"""Answers sized for a model's context (SDK client over stdio): the `schema` tool's authoring
view is generated from the full schema (every key of it, patterns in words, the zone list a
resource) and stays under 20 KB while the exact schema is a resource; `test` pages its answer
and gives one fixture's details on request; every resource has a title. Real sandbox."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import agent_kit as ak
import pytest

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.usefixtures("sandbox")]
REPO = Path(__file__).resolve().parents[2]


def keys(node, path="") -> set[str]:
    """Every property path of a JSON Schema (through $defs, items, anyOf)."""
    out: set[str] = set()
    if isinstance(node, dict):
        for k, v in (node.get("properties") or {}).items():
            out.add(f"{path}/{k}")
            out |= keys(v, f"{path}/{k}")
        for name, d in (node.get("$defs") or {}).items():
            out |= keys(d, f"#{name}")
        for k in ("items", "additionalProperties"):
            out |= keys(node.get(k), path)
        for alt in node.get("anyOf") or []:
            out |= keys(alt, path)
    return out


async def test_the_schema_tool_is_an_authoring_view_of_the_exact_schema(tmp_path):
    from stepsmith.runner.schema import schema_text

    async with ak.assistant(tmp_path) as a:
        done = await a.call("schema")
        full = json.loads((await a.client.read_resource("stepsmith://schema")).contents[0].text)
        zones = json.loads(
            (await a.client.read_resource("stepsmith://timezones")).contents[0].text)
        resources = (await a.client.list_resources()).resources
        templates = (await a.client.list_resource_templates()).resource_templates
        page = (await a.client.read_resource("stepsmith://rules/SS501")).contents[0].text
    view = done.structured
    assert full == json.loads(schema_text())  # the exact schema, still there
    assert len(done.text) < 20_000 and len(json.dumps(view)) < 20_000, len(done.text)
    assert len(json.dumps(full)) > 50_000  # what the view spares the model
    assert keys(view) == keys(full)  # generated from it: no key lost, none invented
    text = json.dumps(view)
    assert "Europe/London" in text and "Pacific/Apia" not in text  # the list is a resource
    assert "stepsmith://timezones" in text and "Pacific/Apia" in zones
    cron = view["$defs"]["Schedule"]["properties"]["cron"]
    assert "pattern" not in cron and "five fields" in cron["pattern_in_words"]
    assert "0 7 * * 1-5" in cron["examples"]
    step_id = view["$defs"]["Step"]["properties"]["id"]
    assert step_id["pattern"] == "^[a-z][a-z0-9_-]*$"  # short ones stay, readable
    assert view["example"]["steps"][0]["code"] == "steps/match.py:match"
    assert all(r.title for r in resources) and all(t.title for t in templates)
    assert page == (REPO / "docs" / "rules" / "SS501.md").read_text()


async def test_test_pages_its_answer_and_gives_one_fixtures_details(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(REPO / "examples", ws, ignore=shutil.ignore_patterns(".stepsmith"))
    async with ak.assistant(ws) as a:
        whole = await a.ok("test", {"paths": ["invoice-matching"]})
        first = await a.ok("test", {"paths": ["invoice-matching"], "limit": 3})
        second = await a.ok("test", {"paths": ["invoice-matching"], "limit": 3,
                                     "offset": first["next_offset"]})
        one_id = next(p for p in whole["passed"] if "recording" not in p)
        one = await a.ok("test", {"paths": [one_id], "full": True})
    n = whole["summary"]["total"]
    assert n > 6 and whole["verdict"] == "passed" and whole["next_offset"] is None
    assert whole["fixtures"] == [] and len(whole["passed"]) == n  # passes one line each
    assert len(first["passed"]) == 3 and first["next_offset"] == 3
    assert "next page offset=3" in first["message"]
    assert second["offset"] == 3 and second["passed"] == whole["passed"][3:6]
    (detail,) = one["fixtures"]
    assert detail["id"] == one_id and detail["outcome"] == "passed"
    assert detail["result"]["status"] == "ok" and detail["fixture"].startswith("invoice-matching/")
