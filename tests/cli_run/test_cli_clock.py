"""A naive `datetime.now()` / `date.today()` is the evaluation time in the
workflow's timezone (top-level `timezone:`, else the schedule's, else UTC); aware ones as asked;
`utcnow()` stays UTC. Real sandbox; documented in `stepsmith rule SS502` and the hover."""

import json

import pytest
from wfkit import cli

pytestmark = pytest.mark.usefixtures("sandbox")

CLOCK = '''\
import datetime
from datetime import date


def clock(label):
    return {
        "naive": datetime.datetime.now().isoformat(),
        "today": date.today().isoformat(),
        "dt_today": datetime.datetime.today().isoformat(),
        "utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "utcnow": datetime.datetime.utcnow().isoformat(),
    }
'''




def clock_wf(kit, root, **top):
    m = kit.demo_manifest(steps=[{"id": "clock", "explanation": "What time is it.",
                                  "code": "steps/clock.py:clock", "inputs": {"label": "x"}}],
                          **top)
    m.pop("sources"), m.pop("effects"), m.pop("connections")
    return kit.write_workflow(root, m, {"steps/clock.py": CLOCK})


def run_clock(capsys, tmp_path, wf, at):
    (tmp_path / "in.json").write_text("{}")
    code, out, err = cli(capsys, "run", wf, "--step", "clock", "--inputs", tmp_path / "in.json",
                         "--at", at, "--format", "json")
    assert code == 0, (out, err)
    return json.loads(out)["output"]


AT = "2026-12-01T23:30:00-05:00"  # 04:30 UTC on 2 December


def test_default_timezone_is_utc(kit, tmp_path, capsys):
    out = run_clock(capsys, tmp_path, clock_wf(kit, tmp_path / "wf"), AT)
    assert out["naive"] == "2026-12-02T04:30:00" and out["today"] == "2026-12-02"
    assert out["utc"] == "2026-12-02T04:30:00+00:00" and out["utcnow"] == "2026-12-02T04:30:00"


def test_top_level_timezone(kit, tmp_path, capsys):
    wf = clock_wf(kit, tmp_path / "wf", timezone="America/New_York")
    out = run_clock(capsys, tmp_path, wf, AT)
    assert out["naive"] == "2026-12-01T23:30:00" and out["today"] == "2026-12-01"
    assert out["dt_today"] == "2026-12-01T23:30:00"
    assert out["utc"] == "2026-12-02T04:30:00+00:00"  # aware: as asked
    assert out["utcnow"] == "2026-12-02T04:30:00"  # utcnow is UTC by name


def test_schedule_timezone_with_daylight_saving(kit, tmp_path, capsys):
    wf = clock_wf(kit, tmp_path / "wf", trigger={"schedule": {"cron": "0 7 * * *",
                                                              "timezone": "Europe/London"}})
    out = run_clock(capsys, tmp_path, wf, "2026-07-01T23:30:00+00:00")  # BST: +01:00
    assert out["naive"] == "2026-07-02T00:30:00" and out["today"] == "2026-07-02"
    out = run_clock(capsys, tmp_path, wf, "2026-12-01T23:30:00+00:00")  # GMT
    assert out["today"] == "2026-12-01"


def test_top_level_timezone_wins_and_is_checked(kit, tmp_path, capsys):
    wf = clock_wf(kit, tmp_path / "wf", timezone="Asia/Tokyo",
                  trigger={"schedule": {"cron": "0 7 * * *", "timezone": "Europe/London"}})
    assert run_clock(capsys, tmp_path, wf, AT)["naive"] == "2026-12-02T13:30:00"
    bad = clock_wf(kit, tmp_path / "bad", timezone="Europe/Lundon")
    code, out, _ = cli(capsys, "check", bad)
    assert code == 1 and "unknown timezone 'Europe/Lundon'" in out and "Europe/London" in out


def test_timezone_is_part_of_the_request(kit, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = clock_wf(kit, tmp_path / "wf")
    kit.write_fixture(wf, "_workflow/day1", {"sources": {}, "evaluation_time": AT})
    assert cli(capsys, "run-workflow", wf, "--case", "day1")[0] == 0
    import yaml

    m = yaml.safe_load((wf / "workflow.yaml").read_text())
    m["timezone"] = "Asia/Tokyo"
    (wf / "workflow.yaml").write_text(yaml.safe_dump(m))
    code, out, err = cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code == 1 and "reused" not in out and "timezone" in err


def test_documented_in_the_rule_and_the_docs(capsys):
    from pathlib import Path

    code, out, _ = cli(capsys, "rule", "SS502")
    assert code == 0 and "workflow's timezone" in out
    from stepsmith.runner.rules.step_rules import BY_CODE

    assert "timezone" in BY_CODE["SS502"].rationale
    docs = (Path(__file__).resolve().parents[2] / "docs" / "clock.md").read_text()
    assert "timezone:" in docs and "date.today()" in docs
