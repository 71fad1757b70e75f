"""runner/app: the use cases the CLI, the server and the pytest plugin share return typed
outcomes (structured fixture results, no text to parse back) and raise typed errors; the CLI
maps those to exit codes in one place. Real sandbox."""

import json

import pytest
from stepsmith.runner.app import cases
from stepsmith.runner.app.record import RecordRequest, record_fixture
from stepsmith.runner.app.step import StepRequest
from stepsmith.runner.cli.errors import exit_code
from stepsmith.runner.errors import Refused, SandboxUnavailable, UsageError

pytestmark = pytest.mark.usefixtures("sandbox")


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fx = kit.passing_fixtures()
    fx["add/simple"]["expected"]["output"]["sum"] = "1.5"
    return kit.full_workflow(tmp_path / "wf", fx)


def test_run_cases_gives_structured_differences(wf):
    req = cases.SuiteRequest(paths=[str(wf / "steps" / "calc.py")], keywords=["add"])
    sel = cases.select(req)
    assert sorted(c.id for c in sel.selected) == ["wf::add::both", "wf::add::simple",
                                                  "wf::double::from-add"]
    outcome = cases.run(sel, req)
    assert outcome.counts == {"passed": 2, "recorded": 0, "failed": 1, "error": 0}
    assert outcome.failed and outcome.executed == 3 and outcome.not_run == 0
    (bad,) = [r for r in outcome.results if r.outcome == "failed"]
    (d,) = bad.differences
    assert (d.path, d.kind, d.expected, d.actual) == ("output.sum", "scale", "1.5", "1.50")
    assert bad.case.path == wf / "fixtures" / "add" / "simple.json"
    doc = outcome.to_json()  # the same records, as data
    (jd,) = [r for r in doc["results"] if r["outcome"] == "failed"][0]["differences"]
    assert (jd["path"], jd["kind"], jd["expected"], jd["actual"]) == ("output.sum", "scale",
                                                                      "1.5", "1.50")
    assert [c.split("/")[-1] for c in doc["pending"]] == ["simple.json"]


def test_bad_requests_are_typed_errors_with_their_exit_code(wf):
    with pytest.raises(UsageError, match="invalid expression at column 5") as e:
        cases.select(cases.SuiteRequest(paths=[str(wf)], keywords=["(add"]))
    assert exit_code(e.value) == 2
    with pytest.raises(UsageError, match="no step 'ad' in wf; did you mean 'add'"):
        cases.select(cases.SuiteRequest(paths=[str(wf)], steps=["ad"]))
    with pytest.raises(UsageError, match="exists; --force overwrites it"):
        record_fixture(RecordRequest(StepRequest(str(wf), "add", {"a": "1.00"},
                                                 "2026-12-01T07:00:00+00:00"), "simple"))
    inputs = {"a": {"amount": "1.00", "api_key": "x"}}
    with pytest.raises(Refused, match="forbidden") as e:
        record_fixture(RecordRequest(StepRequest(str(wf), "add", inputs,
                                                 "2026-12-01T07:00:00+00:00"), "new"))
    assert exit_code(e.value) == 1
    assert exit_code(SandboxUnavailable("x")) == 2


def test_record_fixture_returns_what_it_wrote(wf):
    rec = record_fixture(RecordRequest(StepRequest(str(wf), "add", {"a": "2.00"},
                                                   "2026-12-01T07:00:00+00:00"), "two"))
    assert rec.status == "ok" and rec.result["output"] == {"sum": "2.50"}
    assert json.loads(rec.target.read_text())["expected"]["output"] == {"sum": "2.50"}


def test_workflow_runs_raise_their_kind_where_it_is_known(tmp_path, kit, monkeypatch):
    """run-workflow, record --case and replay: no error class of their own and no mapping
    layer; each stop is runner/errors.py's kind from where it is known, with its exit code."""
    from stepsmith.runner.app import stored_runs, workflow_runs
    from stepsmith.runner.app.workflow import load_workflow
    from stepsmith.runner.errors import InvokeError

    monkeypatch.chdir(tmp_path)
    wf = kit.run_workflow_dir(tmp_path / "wf")
    run = workflow_runs.RunRequest
    with pytest.raises(UsageError, match="no workflow case 'day2'; did you mean 'day1'") as e:
        workflow_runs.run_workflow(run(str(wf), "day2"))
    assert exit_code(e.value) == 2
    with pytest.raises(UsageError, match="run id 'a/b'"):
        workflow_runs.run_workflow(run(str(wf), "day1", run_id="a/b"))
    with pytest.raises(InvokeError, match="no workflow manifest here"):
        workflow_runs.run_workflow(run(str(tmp_path), "day1"))
    with pytest.raises(UsageError, match="no run 'day1': no accepted results"):
        workflow_runs.replay(str(wf), "day1")
    (wf / "fixtures" / "_workflow" / "day1.json").write_text('{"sources": 1}')
    with pytest.raises(Refused) as e:  # a broken case: the loader says what, exit 1
        workflow_runs.record_case(str(wf), "day1")
    assert exit_code(e.value) == 1
    (wf / "fixtures" / "_workflow" / "day1.json").write_text(json.dumps(kit.RUN_CASE))
    (wf / "steps" / "calc.py").write_text("import os\n" + kit.ADD_CODE)
    with pytest.raises(Refused, match="the workflow has check problems") as e:
        stored_runs.run_workflow(load_workflow(wf), "day1")  # the engine refuses it itself
    assert exit_code(e.value) == 1
    assert not (wf / ".stepsmith" / "results.sqlite3").exists()  # nothing stored
