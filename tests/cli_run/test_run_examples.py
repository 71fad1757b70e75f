"""The bundled examples: every fixture passes in the real sandbox, and each workflow case
runs end to end, is accepted, resumes and replays identically. Copies in tmp_path, so the
repository never gets a .stepsmith/ folder from the tests."""

import json
import shutil
from pathlib import Path

import pytest
from stepsmith.runner.cli import main

pytestmark = pytest.mark.usefixtures("sandbox")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WORKFLOWS = sorted(p.parent.name for p in EXAMPLES.glob("*/workflow.yaml"))


def cli(capsys, *argv):
    code = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def examples(tmp_path):
    dst = tmp_path / "examples"
    shutil.copytree(EXAMPLES, dst, ignore=shutil.ignore_patterns(".stepsmith"))
    return dst


def test_there_are_examples():
    assert len(WORKFLOWS) >= 2


def test_every_example_fixture_passes(examples, capsys):
    code, out, _ = cli(capsys, "test", examples, "--format", "json")
    doc = json.loads(out)
    bad = [f"{r['id']}: {r['outcome']}: {r['differences']} {r['messages']}"
           for r in doc["results"] if r["outcome"] not in ("passed", "recorded")]
    assert code == 0 and not bad, "\n".join(bad)
    assert doc["summary"]["passed"] >= 10


@pytest.mark.parametrize("name", WORKFLOWS)
def test_example_runs_resume_and_replay(examples, capsys, name):
    wf = examples / name
    cases = sorted(p.stem for p in (wf / "fixtures" / "_workflow").glob("*.json"))
    assert cases, f"{name} has no workflow case"
    case = cases[0]
    code, out, err = cli(capsys, "run-workflow", wf, "--case", case, "--format", "json")
    assert code == 0, out + err
    first = json.loads(out)
    assert {s["outcome"] for s in first["steps"]} == {"accepted"}
    code, out, err = cli(capsys, "run-workflow", wf, "--case", case, "--format", "json")
    assert code == 0 and {s["outcome"] for s in json.loads(out)["steps"]} == {"reused"}
    code, out, err = cli(capsys, "replay", case, wf, "--format", "json")
    assert code == 0, out + err
    assert {s["outcome"] for s in json.loads(out)["steps"]} <= {"same", "recorded"}


def test_an_example_case_was_recorded_with_record_case(examples, capsys):
    """payment-chasing's week-later case is `record --case` output: recording it again changes
    nothing, and its wired fixtures are consistent (no SF001 even with --strict)."""
    wf = examples / "payment-chasing"
    recorded = sorted(p.parent.name for p in (wf / "fixtures").glob("*/week-later-2026-12-08.json")
                      if p.parent.name != "_workflow")
    assert recorded == ["escalate", "overdue", "reminders", "risk"]
    code, out, _ = cli(capsys, "record", wf, "--case", "week-later-2026-12-08")
    assert code == 0 and "0 new, 0 pending, 4 unchanged" in out
    code, out, _ = cli(capsys, "test", wf, "--strict")
    assert code == 0 and "SF001" not in out


def test_the_demo_loop_on_an_example(examples, capsys):
    """What scripts/demo shows: a deliberate change fails with a readable diff, review --accept
    makes the tests pass."""
    wf = examples / "invoice-matching"
    match = wf / "steps" / "match.py"
    match.write_text(match.read_text().replace(
        '"difference": str(difference)})',
        '"difference": str(difference.quantize(Decimal("0.001")))})'))
    code, out, _ = cli(capsys, "test", wf)
    assert code == 1
    assert "(0.30 vs 0.300: equal value, different scale)" in out
    code, out, _ = cli(capsys, "review", wf, "--accept")
    assert code == 0 and "accepted 3, rejected 0, skipped 0" in out
    assert cli(capsys, "test", wf)[0] == 0
