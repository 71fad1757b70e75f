"""The MCP `mutants` tool over stdio with the SDK's own client: the records `stepsmith mutants
--format json` prints, a typed output schema, progress, scoped to the roots."""

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
VOLATILE = ("seconds", "duration_ms", "cached", "fixture_runs", "baseline_runs")


def _server(root: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "stepsmith.runner.cli", "mcp", str(root)],
                                 cwd=str(root))


def _stable(doc: dict) -> dict:
    def strip(d):
        return {k: v for k, v in d.items() if k not in VOLATILE}
    return {"mutants": [strip(m) for m in doc["mutants"]], "summary": strip(doc["summary"]),
            "opted_out": doc["opted_out"], "notes": doc["notes"]}


async def test_mutants_tool_equals_the_cli(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(REPO / "examples" / "payment-chasing", ws / "payment-chasing",
                    ignore=shutil.ignore_patterns(".stepsmith"))
    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total))

    async with Client(_server(ws)) as client:
        (tool,) = [t for t in (await client.list_tools()).tools if t.name == "mutants"]
        res = await client.call_tool("mutants", {"paths": ["payment-chasing"],
                                                 "steps": ["escalate"]},
                                     progress_callback=on_progress)
        outside = await client.call_tool("mutants", {"paths": [str(tmp_path)]})
    assert not res.is_error, res.content
    jsonschema.validate(res.structured_content, tool.output_schema)
    assert tool.annotations.read_only_hint is False and tool.annotations.open_world_hint is False
    p = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "mutants", "--format",
                        "json", "payment-chasing", "--step", "escalate"], cwd=ws,
                       capture_output=True, text=True, timeout=300, check=False)
    assert p.returncode == 1  # the bundled escalate step has survivors
    mine, theirs = res.structured_content, json.loads(p.stdout)
    assert _stable(mine) == _stable(theirs)
    assert mine["mutants"][0]["status"] == "survived"
    assert mine["mutants"][0]["path"] == "payment-chasing/steps/escalate.py"
    total = mine["summary"]["mutants"]
    assert total > 0 and progress and progress[-1] == (total, total)
    assert outside.is_error and "outside" in outside.content[0].text
