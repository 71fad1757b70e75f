"""Issue 20 #3: a pending change is tied to the code that computed it, as cargo-insta ties a
snapshot to its source. Break a step, `test` (a pending change is written), revert the step:
`review --accept` must refuse the stale change (the fixture stays; it passes again), in the CLI
and in the use case the editor's pending commands call (app/fixture_loop)."""

import json

import pytest
from stepsmith.runner.app import fixture_loop, pending
from stepsmith_wfkit import cli

pytestmark = pytest.mark.usefixtures("sandbox")

BROKEN = '''\
from decimal import Decimal


def add(a, b):
    return {"sum": str(Decimal(a) + Decimal(b) + 1)}


def double(total):
    return {"twice": str(Decimal(total["sum"]) * 2)}
'''


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fx = {"add/simple": kit.add_case("1.00", None, "1.50")}
    return kit.write_workflow(tmp_path / "wf", fixtures=fx)


def _break_then_revert(wf, capsys, kit):
    step = wf / "steps" / "calc.py"
    good = step.read_text()
    step.write_text(BROKEN)
    code, _, _ = cli(capsys, "test", "wf")
    assert code == 1
    assert (wf / ".stepsmith" / "pending" / "add" / "simple.json").exists()
    step.write_text(good)


def test_pending_change_records_the_code_and_runtime(wf, capsys, kit):
    _break_then_revert(wf, capsys, kit)
    doc = json.loads((wf / ".stepsmith" / "pending" / "add" / "simple.json").read_text())
    assert doc["code"] == "steps/calc.py" and len(doc["code_sha256"]) == 64
    assert set(doc["runtime"]) == {"harness_version", "python_version", "harness_source_sha256"}


def test_review_accept_refuses_a_change_from_code_that_no_longer_exists(wf, capsys, kit):
    fixture = wf / "fixtures" / "add" / "simple.json"
    before = fixture.read_bytes()
    _break_then_revert(wf, capsys, kit)
    code, out, err = cli(capsys, "review", "wf", "--accept")
    assert code == 1, (out, err)
    assert "stale" in out + err and "steps/calc.py changed" in out + err
    assert "stepsmith test" in out + err  # the way out
    assert fixture.read_bytes() == before
    code, out, _ = cli(capsys, "test", "wf")
    assert code == 0, out


def test_the_editor_use_case_refuses_it_too(wf, capsys, kit):
    _break_then_revert(wf, capsys, kit)
    (item,) = fixture_loop.find(["wf"])
    decision = fixture_loop.accept(item)
    assert decision.outcome == "refused" and "stale" in decision.message


def test_a_change_from_another_runtime_is_stale(wf, capsys, kit):
    step = wf / "steps" / "calc.py"
    step.write_text(BROKEN)
    cli(capsys, "test", "wf")
    p = wf / ".stepsmith" / "pending" / "add" / "simple.json"
    doc = json.loads(p.read_text())
    doc["runtime"]["harness_source_sha256"] = "0" * 64
    p.write_text(json.dumps(doc))
    (item,) = fixture_loop.find(["wf"])
    decision = fixture_loop.accept(item)
    assert decision.outcome == "refused" and "runtime" in decision.message


def test_the_same_code_is_accepted(wf, capsys, kit):
    (wf / "steps" / "calc.py").write_text(BROKEN)
    cli(capsys, "test", "wf")
    code, out, _ = cli(capsys, "review", "wf", "--accept")
    assert code == 0 and "accepted 1" in out
    assert json.loads((wf / "fixtures" / "add" / "simple.json").read_text())[
        "expected"]["output"] == {"sum": "2.50"}
    assert not list(pending.scan(wf))
