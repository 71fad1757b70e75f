"""A time written without an offset is wall time in the workflow's own zone, everywhere one is
written: MCP's `run_step`/`propose_fixture` `evaluation_time` (SDK client, stdio), `stepsmith
run --at`, a fixture's `evaluation_time`. The result states the instant used; a wall time the
zone repeats or skips is refused naming both readings. Real sandbox."""

from __future__ import annotations

import json

import agent_kit as ak
import pytest

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.usefixtures("sandbox")]

MANIFEST = """workflow: daily
version: 1
python: "3.11"
trigger:
  schedule: {cron: "30 23 * * *", timezone: Europe/London}
steps:
  - id: day
    explanation: Say which day it is for the owner.
    code: steps/day.py:day
    inputs:
      label: x
"""
STEP = '''import datetime


def day(label):
    return {"label": label, "today": datetime.date.today().isoformat()}
'''
SUMMER_NIGHT = "2026-07-01T23:30:00"  # 23:30 BST: still 1 July in London (22:30 UTC)
REPEATED = "2026-10-25T01:30:00"  # the clocks go back at 02:00 BST: 01:30 happens twice
SKIPPED = "2026-03-29T01:30:00"  # the clocks go forward at 01:00 GMT: 01:30 never happens


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    (root / "daily" / "steps").mkdir(parents=True)
    (root / "daily" / "workflow.yaml").write_text(MANIFEST)
    (root / "daily" / "steps" / "day.py").write_text(STEP)
    return root


async def test_run_step_reads_a_time_without_offset_as_the_workflows_wall_time(ws):
    async with ak.assistant(ws) as a:
        out = await a.ok("run_step", {"workflow": "daily", "step": "day", "inputs": {},
                                      "evaluation_time": SUMMER_NIGHT})
        proposed = await a.ok("propose_fixture", {"workflow": "daily", "step": "day",
                                                  "name": "summer", "inputs": {},
                                                  "evaluation_time": SUMMER_NIGHT})
    assert out["status"] == "ok" and out["output"]["today"] == "2026-07-01"
    assert out["evaluation_time"] == "2026-07-01T23:30:00+01:00"  # the instant used
    assert proposed["document"]["evaluation_time"] == "2026-07-01T23:30:00+01:00"
    assert proposed["document"]["expected"]["output"]["today"] == "2026-07-01"


@pytest.mark.parametrize("wall, says, readings", [
    (REPEATED, "happens twice", ("2026-10-25T01:30:00+01:00", "2026-10-25T01:30:00+00:00")),
    (SKIPPED, "does not exist", ("2026-03-29T01:30:00+00:00", "2026-03-29T01:30:00+01:00")),
])
async def test_a_wall_time_the_zone_repeats_or_skips_is_refused_naming_both(ws, wall, says,
                                                                             readings):
    async with ak.assistant(ws) as a:
        run = await a.call("run_step", {"workflow": "daily", "step": "day", "inputs": {},
                                        "evaluation_time": wall})
        prop = await a.call("propose_fixture", {"workflow": "daily", "step": "day",
                                                "name": "edge", "inputs": {},
                                                "evaluation_time": wall})
    for done in (run, prop):
        assert done.is_error and says in done.text and "Europe/London" in done.text, done.text
        assert all(r in done.text for r in readings), done.text
    assert not (ws / "daily" / ".stepsmith" / "pending").exists()


async def test_cli_run_at_and_fixtures_read_wall_time_in_the_workflows_zone(ws):
    wf = ws / "daily"
    p = ak.cli(ws, "run", "daily", "--step", "day", "--at", SUMMER_NIGHT, "--format", "json",
               "--inputs", str(_inputs(ws)))
    res = json.loads(p.stdout)
    assert res["output"]["today"] == "2026-07-01", p.stdout + p.stderr
    assert res["evaluation_time"] == "2026-07-01T23:30:00+01:00"
    text = ak.cli(ws, "run", "daily", "--step", "day", "--at", SUMMER_NIGHT,
                  "--inputs", str(_inputs(ws)))
    assert "evaluation time 2026-07-01T23:30:00+01:00" in text.stdout, text.stdout
    refused = ak.cli(ws, "run", "daily", "--step", "day", "--at", REPEATED,
                     "--inputs", str(_inputs(ws)))
    assert refused.returncode == 2 and "happens twice in Europe/London" in refused.stderr
    # a fixture written without an offset is read the same way
    (wf / "fixtures" / "day").mkdir(parents=True)
    (wf / "fixtures" / "day" / "summer.json").write_text(json.dumps({
        "inputs": {}, "evaluation_time": SUMMER_NIGHT,
        "expected": {"output": {"label": "x", "today": "2026-07-01"}, "effects": []}}))
    rc, doc = ak.Person(ws).test_json("daily")
    assert rc == 0 and [r["outcome"] for r in doc["results"]] == ["passed"], doc["results"]
    (wf / "fixtures" / "day" / "edge.json").write_text(json.dumps({
        "inputs": {}, "evaluation_time": REPEATED,
        "expected": {"output": {"label": "x", "today": "2026-10-25"}, "effects": []}}))
    check = ak.cli(ws, "check", "--format", "json", "daily")
    (problem,) = json.loads(check.stdout)["problems"]
    assert problem["path"].endswith("fixtures/day/edge.json") and problem["line"] == 1
    assert "happens twice in Europe/London" in problem["message"]
    assert "2026-10-25T01:30:00+01:00" in problem["message"]


def _inputs(ws):
    f = ws / "inputs.json"
    f.write_text("{}")
    return f
