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
