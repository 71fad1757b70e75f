"""`stepsmith record --case` (one fixture per step from a workflow case) and stale wired
fixtures (SF001) in `stepsmith test` and `stepsmith check`."""

import json

import pytest
from stepsmith.runner.cli import main

pytestmark = pytest.mark.usefixtures("sandbox")


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return kit.run_workflow_dir(tmp_path / "wf")


def fixture(wf, step, name="day1"):
    return json.loads((wf / "fixtures" / step / f"{name}.json").read_text())


def test_record_case_writes_one_fixture_per_step_with_the_wired_inputs(wf, capsys):
    code, out, err = cli(capsys, "record", "wf", "--case", "day1")
    assert code == 0, out + err
    assert "case day1: 5 new, 0 pending, 0 unchanged, 0 failed, 0 skipped" in out
    add, double = fixture(wf, "add"), fixture(wf, "double")
    assert add["inputs"] == {"a": "1.25"}  # the literal b stays in the manifest
    assert add["expected"] == {"output": {"sum": "1.75"}, "effects": []}
    assert add["evaluation_time"] == "2026-12-01T07:00:00+00:00" and add["seed"] == 11
    assert double["inputs"] == {"total": {"sum": "1.75"}}  # what the wiring produced
    assert double["recorded_from"]["case"] == "day1"
    up = double["recorded_from"]["upstream"]["add"]
    assert up["fixture"] == "day1" and len(up["request_sha256"]) == 64
    assert fixture(wf, "fetch")["expected"]["output"] == {"body": "<html>recorded</html>"}
    assert fixture(wf, "bill")["expected"]["effects"][0]["key"] == "INV-1"
    assert cli(capsys, "test", "wf")[0] == 0  # every recorded fixture passes


def test_record_case_again_is_unchanged_and_differences_become_pending(wf, capsys, kit):
    cli(capsys, "record", "wf", "--case", "day1")
    code, out, _ = cli(capsys, "record", "wf", "--case", "day1")
    assert code == 0 and "0 new, 0 pending, 5 unchanged" in out
    code_file = wf / "steps" / "calc.py"
    code_file.write_text(code_file.read_text().replace("* 2", "* 3"))
    before = (wf / "fixtures" / "double" / "day1.json").read_bytes()
    code, out, _ = cli(capsys, "record", "wf", "--case", "day1")
    assert code == 0 and "1 pending" in out and "stepsmith review wf" in out
    assert (wf / "fixtures" / "double" / "day1.json").read_bytes() == before
    code, out, _ = cli(capsys, "review", "wf", "--accept")
    assert code == 0 and "accepted 1" in out
    assert fixture(wf, "double")["expected"]["output"] == {"twice": "5.25"}


def test_record_case_name_and_bad_arguments(wf, capsys):
    code, _, _ = cli(capsys, "record", "wf", "--case", "day1", "--name", "monday")
    assert code == 0 and (wf / "fixtures" / "add" / "monday.json").is_file()
    assert fixture(wf, "double", "monday")["recorded_from"]["upstream"]["add"]["fixture"] == \
        "monday"
    code, _, err = cli(capsys, "record", "wf", "--case", "nope")
    assert code == 2 and "no workflow case 'nope'" in err
    code, _, err = cli(capsys, "record", "wf", "--case", "day1", "--name", "../x")
    assert code == 2 and "not a case name" in err
    code, _, err = cli(capsys, "record", "wf", "--case", "day1", "--step", "add")
    assert code == 2 and "takes no --step" in err
    code, _, err = cli(capsys, "record", "wf", "--step", "add")
    assert code == 2 and "required: --at, --name" in err  # --inputs: optional (issue 20)


def test_stale_wired_fixture_warns_then_fails_with_strict(wf, capsys):
    cli(capsys, "record", "wf", "--case", "day1")
    code_file = wf / "steps" / "calc.py"
    code_file.write_text(code_file.read_text().replace(
        '{"sum": str(Decimal(a) + Decimal(b))}', '{"sum": str(Decimal(a) + Decimal(b) + 1)}'))
    code, out, _ = cli(capsys, "test", "wf", "--update")
    assert code == 0, out
    code, out, _ = cli(capsys, "test", "wf")
    assert code == 0  # a warning, not a failure
    assert ("warning SF001 stale wired fixture: wf/fixtures/double/day1.json was recorded from "
            "case 'day1', but the upstream fixture wf/fixtures/add/day1.json now outputs "
            "something else than its input 'total'; refresh with "
            "`stepsmith record wf --case day1`") in out
    assert cli(capsys, "test", "wf", "--strict")[0] == 1
    code, out, _ = cli(capsys, "check", "wf")
    assert code == 0 and "wf/fixtures/double/day1.json: warning: SF001" in out
    assert cli(capsys, "check", "wf", "--strict")[0] == 1
    code, out, _ = cli(capsys, "check", "wf", "--format", "json")
    assert json.loads(out)["warnings"][0]["upstream"] == "wf/fixtures/add/day1.json"
    # refreshing as the message says clears it
    cli(capsys, "record", "wf", "--case", "day1")
    cli(capsys, "review", "wf", "--accept")
    code, out, _ = cli(capsys, "test", "wf", "--strict")
    assert code == 0 and "SF001" not in out


def test_stale_when_the_upstream_fixture_is_gone(wf, capsys):
    cli(capsys, "record", "wf", "--case", "day1")
    (wf / "fixtures" / "add" / "day1.json").unlink()
    code, out, _ = cli(capsys, "test", "wf")
    assert code == 0 and "wf/fixtures/add/day1.json no longer exists" in out


def test_sf001_is_in_the_catalogue(capsys):
    code, out, _ = cli(capsys, "rule", "SF001")
    assert code == 0 and "stale-wired-fixture" in out


def test_bad_recorded_from_is_a_clear_fixture_error(wf, capsys, kit):
    doc = kit.add_case("1.00", None, "1.50", recorded_from={"case": 3})
    kit.write_fixture(wf, "add/odd", doc)
    code, out, _ = cli(capsys, "test", "wf")
    assert code == 1 and "recorded_from must be an object with a case name" in out


@pytest.mark.parametrize("timezone", [None, "Asia/Tokyo"])
def test_recorded_upstream_hash_is_the_stores_request_hash(tmp_path, kit, capsys, monkeypatch,
                                                          timezone):
    """`recorded_from` names the upstream step's request as the results store hashes it, so
    a workflow's clock timezone (a naive now() depends on it) is part of both."""
    monkeypatch.chdir(tmp_path)
    m = kit.run_manifest(**({"timezone": timezone} if timezone else {}))
    wf = kit.run_workflow_dir(tmp_path / "wf", m)
    code, out, err = cli(capsys, "record", "wf", "--case", "day1")
    assert code == 0, out + err
    recorded = fixture(wf, "double")["recorded_from"]["upstream"]["add"]["request_sha256"]
    code, out, err = cli(capsys, "run-workflow", "wf", "--case", "day1", "--format", "json")
    assert code == 0, out + err
    stored = {s["step"]: s["request_sha256"] for s in json.loads(out)["steps"]}
    assert recorded == stored["add"]
