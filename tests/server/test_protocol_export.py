"""The extension's protocol types and its language-model tools' input schemas are generated
from their one declaration in Python (server/protocol.py, runner/app/shapes.py): the
checked-in files match it, and the tools that answer take exactly the declared arguments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stepsmith.runner.app.shapes import AGENT_TOOL_INPUTS, ReachInput
from stepsmith.server.export import (
    PACKAGE_JSON,
    PROTOCOL_TS,
    main,
    package_json_text,
    protocol_ts,
    tool_input_schemas,
)
from stepsmith.server.handlers.agent_tools import READ_ONLY, RUNS

REPO = Path(__file__).resolve().parents[2]
REGENERATE = "regenerate with `scripts/gen-protocol`"


def test_generated_protocol_ts_matches_the_declaration():
    assert (REPO / PROTOCOL_TS).read_text(encoding="utf-8") == protocol_ts(), (
        f"{PROTOCOL_TS} drifted from server/protocol.py; {REGENERATE}")


def test_package_json_tool_schemas_match_the_declaration():
    text = (REPO / PACKAGE_JSON).read_text(encoding="utf-8")
    assert text == package_json_text(text), f"{PACKAGE_JSON} drifted; {REGENERATE}"


def test_every_tool_is_declared_and_answered():
    tools = json.loads((REPO / PACKAGE_JSON).read_text())["contributes"]["languageModelTools"]
    assert [t["name"] for t in tools] == list(AGENT_TOOL_INPUTS)
    assert {f"stepsmith_{t}" for t in READ_ONLY + RUNS} == set(AGENT_TOOL_INPUTS)


def test_the_generated_types_say_what_the_records_hold():
    ts = protocol_ts()
    assert "export interface ReachStep {" in ts and "  source_origins: Record<string, string>;" in ts
    assert "  codeLocation?: LspLocation | null;" in ts
    assert '  network: "none" | "public_egress";' in ts
    schemas = tool_input_schemas()
    assert schemas["stepsmith_reach"] == {"type": "object", "properties": {"path": {
        "type": "string", "description": ReachInput.model_fields["path"].description}}}
    assert schemas["stepsmith_run_step"]["required"] == ["workflow", "step", "inputs"]
    assert schemas["stepsmith_test"]["properties"]["limit"] == {
        "type": "integer", "minimum": 1, "maximum": 500,
        "description": "fixtures per page (default 50)"}


@pytest.mark.asyncio(loop_scope="function")
async def test_mcp_tools_take_the_declared_arguments(tmp_path):
    """MCP serves the same use cases: each tool's arguments are the declared ones, the same
    required, the same JSON types."""
    from stepsmith.runner.mcp.server import build

    listed = {t.name: t for t in await build(tmp_path).list_tools()}
    for name, schema in tool_input_schemas().items():
        mcp = listed[name.removeprefix("stepsmith_")].input_schema
        props = {k: v for k, v in mcp["properties"].items()}
        assert set(props) == set(schema["properties"]), name
        assert set(mcp.get("required", ())) == set(schema.get("required", ())), name
        for arg, declared in schema["properties"].items():
            types = {x.get("type") for x in props[arg].get("anyOf", [props[arg]])} - {"null"}
            assert types == {declared["type"]}, (name, arg, types)
            assert props[arg]["description"] == declared["description"], (name, arg)


def test_export_writes_nothing_unasked(capsys):
    assert main(["--bogus"]) == 2
    assert main([]) == 0 and capsys.readouterr().out == protocol_ts()


@pytest.mark.parametrize("model", list(AGENT_TOOL_INPUTS.values()))
def test_inputs_refuse_what_the_schema_refuses(model):
    """The declaration is the validator too: a wrong type is refused."""
    from pydantic import ValidationError

    field = next(iter(model.model_fields))
    with pytest.raises(ValidationError):
        model.model_validate({field: {"not": "this"}} if field != "inputs" else {field: 3})
