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
