"""A scripted agent: from a step and manifest breaking three rules, it applies the first fix
the `check` tool returns, re-checks until clean, then `test` passes. Proves the structured
output is enough for a program to act on (no text parsing anywhere)."""

from __future__ import annotations

import sys

import agent_kit as ak
import pytest
from mcp import Client, StdioServerParameters

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.usefixtures("sandbox")]

MANIFEST = """workflow: totals
version: 1
python: "3.11"
trigger: {manual: {}}
steps:
  - id: total
    explenation: Add up the amounts.
    code: steps/total.py:total
    inputs:
      amounts: ["1.50", "2.25"]
      extra: 1
"""
STEP = '''import os
from decimal import Decimal


def total(amounts):
    return str(sum(Decimal(a) for a in amounts))
'''
FIXTURE = ('{"inputs": {"amounts": ["1.50", "2.25"]}, "evaluation_time": '
           '"2026-12-01T07:00:00+00:00", "expected": {"output": "3.75", "effects": []}}\n')


async def test_an_agent_fixes_a_broken_step_from_check_alone_then_tests_pass(tmp_path):
    root = tmp_path / "ws"
    (root / "steps").mkdir(parents=True)
    (root / "fixtures" / "total").mkdir(parents=True)
    (root / "workflow.yaml").write_text(MANIFEST)
    (root / "steps" / "total.py").write_text(STEP)
    (root / "fixtures" / "total" / "two.json").write_text(FIXTURE)
    params = StdioServerParameters(command=sys.executable, cwd=str(root),
                                   args=["-m", "stepsmith.runner.cli", "mcp", str(root)])
    seen_codes: set[str] = set()
    async with Client(params) as client:
        for _round in range(10):
            out = (await client.call_tool("check", {})).structured_content
            if out["clean"]:
                break
            seen_codes |= {p["code"] for p in out["problems"]}
            fixable = [p for p in out["problems"] if p["fixes"]]
            assert fixable, f"stuck: no fix offered for {out['problems']}"
            ak.apply_edits(root, fixable[0]["fixes"][0]["edits"])
        else:
            pytest.fail("check never became clean")
        result = (await client.call_tool("test", {})).structured_content
    assert {"SS101", "SM003", "SM204"} <= seen_codes  # three rules broken at the start
    assert result["verdict"] == "passed" and result["passed"] == [".::total::two"]
    assert "import os" not in (root / "steps" / "total.py").read_text()
    assert "    explanation: Add up the amounts.\n" in (root / "workflow.yaml").read_text()
    assert "extra" not in (root / "workflow.yaml").read_text()
