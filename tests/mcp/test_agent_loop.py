"""A scripted agent: from a step and manifest breaking three rules, it applies the first fix
the `check` tool returns, re-checks until clean, then `test` passes. Proves the structured
output is enough for a program to act on (no text parsing anywhere)."""

from __future__ import annotations

import sys
from pathlib import Path

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


def apply(root: Path, edits: list[dict]) -> None:
    """Apply edits as the contract says: line 1-based, column 0-based code points, end
    exclusive; all positions refer to the file before any of them."""
    by_file: dict[str, list[dict]] = {}
    for e in edits:
        by_file.setdefault(e["path"], []).append(e)
    for rel, es in by_file.items():
        path = root / rel
        lines = path.read_text().splitlines(keepends=True)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line))
        text = "".join(lines)

        def off(line: int, col: int) -> int:
            return min(starts[min(line, len(lines) + 1) - 1] + col, len(text))

        for e in sorted(es, key=lambda e: (e["line"], e["column"]), reverse=True):
            a, b = off(e["line"], e["column"]), off(e["end_line"], e["end_column"])
            text = text[:a] + e["new_text"] + text[b:]
        path.write_text(text)


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
            apply(root, fixable[0]["fixes"][0]["edits"])
        else:
            pytest.fail("check never became clean")
        result = (await client.call_tool("test", {})).structured_content
    assert {"SS101", "SM003", "SM204"} <= seen_codes  # three rules broken at the start
    assert result["verdict"] == "passed" and result["passed"] == [".::total::two"]
    assert "import os" not in (root / "steps" / "total.py").read_text()
    assert "    explanation: Add up the amounts.\n" in (root / "workflow.yaml").read_text()
    assert "extra" not in (root / "workflow.yaml").read_text()
