"""`stepsmith mcp` end to end with the official SDK's own client over stdio: the tools, their
schemas and structured results, equal to what the CLI says; the refusals; and an agent loop
that fixes a broken step from `check`'s fix edits alone until `test` passes. Real sandbox."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from mcp import Client, StdioServerParameters

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.usefixtures("sandbox")]
REPO = Path(__file__).resolve().parents[2]
READ_ONLY = {"check", "reach", "explain_rule", "schema"}
ALL_TOOLS = READ_ONLY | {"run_step", "test", "propose_fixture", "mutants"}


def server(root: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "stepsmith.runner.cli", "mcp", str(root)], cwd=str(root))


def cli(root: Path, *argv: str) -> tuple[int, str]:
    p = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", *argv], cwd=root,
                       capture_output=True, text=True, timeout=300, check=False)
    return p.returncode, p.stdout


@pytest.fixture
def ws(tmp_path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(REPO / "examples", root, ignore=shutil.ignore_patterns(".stepsmith"))
    return root


async def call(client, name: str, args: dict | None = None):
    res = await client.call_tool(name, args or {})
    return res


async def test_tools_are_listed_with_valid_schemas_and_annotations(ws):
    async with Client(server(ws)) as client:
        listed = (await client.list_tools()).tools
    assert {t.name for t in listed} == ALL_TOOLS
    for t in listed:
        jsonschema.Draft202012Validator.check_schema(t.input_schema)
        assert t.output_schema is not None, t.name  # structured output, not text to parse
        jsonschema.Draft202012Validator.check_schema(t.output_schema)
        assert t.description and t.title, t.name
        # a docstring's indentation never reaches the model
        assert not any(line.startswith(" ") for line in t.description.splitlines()), t.name
        assert "live" not in t.input_schema.get("properties", {}), t.name
    schemas = {t.name: t.output_schema for t in listed}
    for name in ("run_step", "test", "propose_fixture"):  # typed, not "any object"
        assert {"status", "output", "error", "evaluation_time"} <= set(
            schemas["run_step"]["properties"]) and schemas[name].get("properties"), name
    assert {"verdict", "summary", "fixtures", "passed", "waiting_for_review"} <= set(
        schemas["test"]["properties"])
    for t in listed:
        assert bool(t.annotations and t.annotations.read_only_hint) == (t.name in READ_ONLY), t.name
        assert t.annotations.open_world_hint is False
    names = {t.name for t in listed}
    assert not names & {"accept", "review", "record_live", "run_live"}


BROKEN_MANIFEST_EDIT = ("    explanation: Pair each invoice", "    explenation: Pair each invoice")


async def test_check_returns_problems_at_the_clis_spans_with_fixes(ws):
    man = ws / "invoice-matching" / "workflow.yaml"
    man.write_text(man.read_text().replace(*BROKEN_MANIFEST_EDIT))
    step = ws / "invoice-matching" / "steps" / "match.py"
    step.write_text("import os\n" + step.read_text())
    fixture = ws / "invoice-matching" / "fixtures" / "normalise" / "typo.json"
    fixture.write_text('{"inputs": {},\n "expectd": {"output": []}}\n')  # a fixture finding
    async with Client(server(ws)) as client:
        res = await call(client, "check", {"paths": ["invoice-matching"]})
    assert not res.is_error
    out = res.structured_content
    _rc, cli_out = cli(ws, "check", "--format", "json", "invoice-matching")
    want = [(p["path"], p["code"], p["line"], p["column"], p["end_line"], p["end_column"])
            for p in json.loads(cli_out)["problems"]]
    got = [(p["path"], p["code"], p["line"], p["column"], p["end_line"], p["end_column"])
           for p in out["problems"]]
    assert sorted(got) == sorted(want) and out["clean"] is False
    by = {p["code"]: p for p in out["problems"]}
    assert by["SS101"]["fixes"][0]["safe"] is True and by["SS101"]["fixes"][0]["edits"]
    assert by["SS101"]["rationale"] and "url" not in by["SS101"]  # no link to the server's disk
    assert by["SM003"]["fixes"][0]["edits"][0]["new_text"] == "explanation"
    # issue 21: a fixture finding is a Problem like the others: its rule's page, its fix
    sf = next(p for p in out["problems"] if p["code"] == "SF003" and "'expectd'" in p["message"])
    assert sf["path"] == "invoice-matching/fixtures/normalise/typo.json"
    assert (sf["line"], sf["column"], sf["end_column"]) == (2, 1, 10) and sf["rationale"]
    assert [e["new_text"] for e in sf["fixes"][0]["edits"]] == ["expected"]


async def test_reach_and_rules_and_schema(ws):
    async with Client(server(ws)) as client:
        reach = (await call(client, "reach", {})).structured_content
        rule = (await call(client, "explain_rule", {"code": "ss501"})).structured_content
        bad = await call(client, "explain_rule", {"code": "SS1O1"})
        schema = (await call(client, "schema")).structured_content
        resources = {str(r.uri) for r in (await client.list_resources()).resources}
        dialect = json.loads((await client.read_resource("stepsmith://dialect")).contents[0].text)
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        prompt = await client.get_prompt("draft_workflow_step", {"task": "match invoices"})
    _rc, cli_reach = cli(ws, "reach", "--format", "json")
    cli_rows = {w["workflow"]: [r["step_id"] for r in w["steps"]]
                for w in json.loads(cli_reach)["workflows"]}
    assert {w["workflow"]: [s["step_id"] for s in w["steps"]] for w in reach["workflows"]} == cli_rows
    assert reach["sentence"].startswith("This is what each step is permitted to reach")
    assert rule["code"] == "SS501" and rule["refused_example"] and rule["accepted_fix"]
    # the rule's page itself, where the reader is (not a file:// link to the server's disk)
    assert rule["page"] == (REPO / "docs" / "rules" / "SS501.md").read_text()
    assert "url" not in rule and "file://" not in json.dumps(rule)
    assert bad.is_error and "SS101" in bad.content[0].text  # did-you-mean
    assert schema["properties"]["steps"] and schema["$defs"]["Step"]["required"]
    assert {"stepsmith://dialect", "stepsmith://rules", "stepsmith://schema",
            "stepsmith://timezones"} <= resources
    assert "json" in dialect["allowed_modules"] and dialect["names"]["decimal"]
    assert "draft_workflow_step" in prompts
    assert "SS101" in prompt.messages[0].content.text and "match invoices" in prompt.messages[0].content.text


async def test_test_agrees_with_the_cli_and_reports_progress(ws):
    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total))

    step = ws / "invoice-matching" / "steps" / "normalise.py"
    step.write_text(step.read_text().replace("return ", "return None or ", 1))
    fixture = sorted((ws / "invoice-matching" / "fixtures" / "normalise").glob("*.json"))[0]
    doc = json.loads(fixture.read_text())
    doc["expected"]["output"] = {"changed": True}
    fixture.write_text(json.dumps(doc))
    async with Client(server(ws)) as client:
        res = await client.call_tool("test", {"paths": ["."]}, progress_callback=on_progress)
    assert not res.is_error, res.content
    _rc, cli_out = cli(ws, "test", "--format", "json", ".")
    mine, theirs = res.structured_content, json.loads(cli_out)
    for k in ("passed", "recorded", "failed", "error", "total", "not_run"):
        assert mine["summary"][k] == theirs["summary"][k], k
    failing = {r["id"] for r in theirs["results"] if r["outcome"] in ("failed", "error")}
    assert failing and {f["id"] for f in mine["fixtures"]} == failing
    cli_diffs = {r["id"]: r["differences"] for r in theirs["results"]}
    for f in mine["fixtures"]:  # failures whole, with the CLI's structured differences
        assert f["differences"] == cli_diffs[f["id"]] and f["result"] is not None
        assert not f["fixture"].startswith("/")
    passing = {r["id"] for r in theirs["results"] if r["outcome"] == "passed"}
    recorded = {r["id"] for r in theirs["results"] if r["outcome"] == "recorded"}
    assert recorded and set(mine["passed"]) == passing | {
        f"{i} (served from its recording)" for i in recorded}  # one line each
    assert mine["verdict"] == "failed" and mine["pending_written"] == [
        f"invoice-matching/.stepsmith/pending/normalise/{fixture.stem}.json"]
    total = theirs["summary"]["total"]
    assert progress and progress[-1] == (total, total)


async def test_run_step_gives_the_fixtures_result(ws):
    fixture = sorted((ws / "invoice-matching" / "fixtures" / "normalise").glob("*.json"))[0]
    doc = json.loads(fixture.read_text())
    async with Client(server(ws)) as client:
        res = await call(client, "run_step", {
            "workflow": "invoice-matching", "step": "normalise", "inputs": doc["inputs"],
            "evaluation_time": doc.get("evaluation_time"), "seed": doc.get("seed")})
    assert not res.is_error, res.content
    out = res.structured_content
    assert out["status"] == "ok" and out["output"] == doc["expected"]["output"]


async def test_propose_fixture_writes_only_a_pending_change(ws):
    fixture = sorted((ws / "invoice-matching" / "fixtures" / "normalise").glob("*.json"))[0]
    doc = json.loads(fixture.read_text())
    before = sorted(p.name for p in (ws / "invoice-matching" / "fixtures" / "normalise").iterdir())
    async with Client(server(ws)) as client:
        res = await call(client, "propose_fixture", {
            "workflow": "invoice-matching", "step": "normalise", "name": "agent-case",
            "inputs": doc["inputs"], "evaluation_time": doc.get("evaluation_time")})
    assert not res.is_error, res.content
    out = res.structured_content
    assert out["pending"] == "invoice-matching/.stepsmith/pending/normalise/agent-case.json"
    assert out["replaces_existing"] is False and out["review"] == "stepsmith review invoice-matching"
    # nothing became an expectation; a person sees it in review
    assert sorted(p.name for p in (ws / "invoice-matching" / "fixtures" / "normalise").iterdir()) == before
    rc, listed = cli(ws, "review", "--list", "invoice-matching")
    assert "normalise" in listed and "agent-case" in listed, listed


@pytest.mark.parametrize("tool, args, why", [
    ("check", {"paths": ["/etc"]}, "outside the workspace roots"),
    ("check", {"paths": ["../"]}, "outside the workspace roots"),
    ("reach", {"path": "/"}, "outside the workspace roots"),
    ("test", {"paths": ["../outside"]}, "outside the workspace roots"),
    ("test", {"paths": ["../outside::s::c"]}, "outside the workspace roots"),
    ("test", {"paths": ["escape"]}, "outside the workspace roots (through a symlink)"),
    ("run_step", {"workflow": "invoice-matching", "step": "fx_rates", "inputs": {}},
     "public_egress step"),
    ("propose_fixture", {"workflow": "invoice-matching", "step": "normalise", "name": "../../x",
                         "inputs": {"invoices": []}}, "not a case name"),
    ("accept", {}, "accept"),
])
async def test_refusals(ws, tool, args, why):
    outside = ws.parent / "outside"
    outside.mkdir(exist_ok=True)
    (ws / "escape").symlink_to(outside)
    async with Client(server(ws)) as client:
        res = await call(client, tool, args)
        link = await call(client, "check", {"paths": ["escape"]})
    assert res.is_error and why in res.content[0].text, res.content
    assert link.is_error and "outside the workspace roots" in link.content[0].text
    assert not list(outside.iterdir())


async def test_roots_declared_by_the_client_scope_the_tools(ws, tmp_path):
    from mcp_types import ListRootsResult, Root

    other = tmp_path / "other"
    shutil.copytree(REPO / "examples" / "payment-chasing", other / "payment-chasing",
                    ignore=shutil.ignore_patterns(".stepsmith"))

    async def roots(_ctx):
        return ListRootsResult(roots=[Root(uri=other.as_uri(), name="other")])

    # started without FOLDER (in ws): the client's roots replace the current folder
    unbounded = StdioServerParameters(command=sys.executable, cwd=str(ws),
                                      args=["-m", "stepsmith.runner.cli", "mcp"])
    async with Client(unbounded, list_roots_callback=roots) as client:
        reach = (await call(client, "reach", {})).structured_content
        refused = await call(client, "reach", {"path": str(ws)})
    assert [w["workflow"] for w in reach["workflows"]] == ["payment-chasing"]
    assert refused.is_error and "outside the workspace roots" in refused.content[0].text
    # started for FOLDER ws: roots outside it reach nothing, and the answer says why
    async with Client(server(ws), list_roots_callback=roots) as client:
        bounded = await call(client, "reach", {})
    assert bounded.is_error and "lie outside" in bounded.content[0].text
    assert "bounds them" in bounded.content[0].text


async def test_folder_bounds_a_client_declaring_the_whole_disk(ws, tmp_path):
    """`file:///` declared by the client reaches only inside FOLDER (the intersection)."""
    from mcp_types import ListRootsResult, Root

    beside = tmp_path / "beside"
    shutil.copytree(REPO / "examples" / "payment-chasing", beside / "payment-chasing",
                    ignore=shutil.ignore_patterns(".stepsmith"))

    async def roots(_ctx):
        return ListRootsResult(roots=[Root(uri="file:///", name="disk")])

    inner = ws / "invoice-matching"
    async with Client(server(inner), list_roots_callback=roots) as client:
        reach = (await call(client, "reach", {})).structured_content
        outside = await call(client, "reach", {"path": str(beside)})
        sibling = await call(client, "check", {"paths": [str(ws / "payment-chasing")]})
    assert [w["workflow"] for w in reach["workflows"]] == ["invoice-matching"]
    assert outside.is_error and "outside the workspace roots" in outside.content[0].text
    assert sibling.is_error and "outside the workspace roots" in sibling.content[0].text
