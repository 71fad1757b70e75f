"""`stepsmith test` start-up: a plain run starts the first workflow's fixtures while
the next workflows load (a request that needs every workflow first, --step, --lf, --ff, --sw,
--shard, still collects them all before running anything); both ways select, run and report
the same; and the time the summary reports counts the collection, as pytest's does, with the
sandboxes' share beside it. Real CLI, real sandbox."""

import json
import re
import threading
import time

import pytest
from stepsmith.runner.app import case_run, cases, suite
from stepsmith.runner.cli import main

pytestmark = pytest.mark.usefixtures("sandbox")


@pytest.fixture
def three(tmp_path, kit, monkeypatch):
    """wf0, wf1 (one failing fixture), wf2, each with two fixtures."""
    monkeypatch.chdir(tmp_path)
    for i in range(3):
        bad = "9" if i == 1 else "1.50"
        kit.write_workflow(tmp_path / f"wf{i}", fixtures={
            "add/one": kit.add_case("1.00", None, bad),
            "add/two": kit.add_case("2.00", None, "2.50")})
    return tmp_path


def _spy(monkeypatch, *, hold_last: bool = False):
    """Record loads and fixture runs in order; `hold_last`: the last workflow's load waits
    (up to 20 s) until some fixture has started, and records whether it had."""
    events, started = [], threading.Event()
    real_load, real_run = suite.load_workflow, case_run.run_case
    waited = []

    def load_workflow(manifest, *a, **k):
        name = manifest.parent.name
        if hold_last and name == "wf2":
            waited.append(started.wait(20))
        events.append(("load", name))
        return real_load(manifest, *a, **k)

    def run_case(case, *a, **k):
        events.append(("run", case.id))
        started.set()
        return real_run(case, *a, **k)

    monkeypatch.setattr(suite, "load_workflow", load_workflow)
    monkeypatch.setattr(case_run, "run_case", run_case)
    return events, waited


def test_the_first_workflow_runs_while_the_others_load(three, monkeypatch, capsys):
    events, waited = _spy(monkeypatch, hold_last=True)
    assert main(["test", "."]) == 1
    out = capsys.readouterr().out
    assert waited == [True], events  # a fixture of wf0 started before wf2 was loaded
    first_run = next(i for i, e in enumerate(events) if e[0] == "run")
    assert events.index(("load", "wf2")) > first_run
    assert "5 passed, 1 failed, 0 errors" in out


@pytest.mark.parametrize("extra", [["--ff"], ["--lf"], ["--sw"], ["--shard", "1/1"],
                                   ["--step", "add"]])
def test_what_needs_every_workflow_collects_them_all_first(three, monkeypatch, capsys, extra):
    events, _ = _spy(monkeypatch)
    main(["test", ".", *extra])
    capsys.readouterr()
    loads = [i for i, e in enumerate(events) if e[0] == "load"]
    runs = [i for i, e in enumerate(events) if e[0] == "run"]
    assert len(loads) == 3 and runs and max(loads) < min(runs), events


def _comparable(doc: dict) -> dict:
    doc = json.loads(json.dumps(doc))
    for r in doc["results"]:
        r.pop("duration_ms"), r.pop("result")
    for k in ("seconds", "run_seconds", "fixtures_per_second"):
        doc["summary"].pop(k, None)
    return doc


@pytest.mark.parametrize("argv", [[], ["-k", "two or wf1"], ["-x"], ["--maxfail", "2", "-j", "1"],
                                  ["wf1::add::one", "wf2"]])
def test_streamed_and_collected_runs_agree(three, kit, capsys, argv):
    """The streamed run (the CLI) against the whole selection run at once (select, then run)."""
    kit.write_workflow(three / "broken", fixtures={"add/one": kit.add_case("1.00", None, "1.50")})
    (three / "broken" / "workflow.yaml").write_text("workflow: broken\nsteps: 3\n")
    kit.write_fixture(three / "wf2", "add/bad.json", "{not json")
    code = main(["test", *argv, "--format", "json"] if argv and "::" in argv[0]
                else ["test", ".", *argv, "--format", "json"])
    streamed = json.loads(capsys.readouterr().out)
    paths = [a for a in argv if "::" in a or a.startswith("wf")] or ["."]
    rest = [a for a in argv if a not in paths]
    req = cases.SuiteRequest(
        paths=paths, keywords=[rest[rest.index("-k") + 1]] if "-k" in rest else [],
        maxfail=1 if "-x" in rest else (2 if "--maxfail" in rest else None),
        jobs=1 if "-j" in rest else None)
    whole = cases.run(cases.select(req), req).to_json()
    assert _comparable(streamed) == _comparable(whole)
    assert code == (1 if streamed["summary"]["failed"] or streamed["summary"]["error"] else 0)


def test_maxfail_stops_what_the_later_workflows_would_run(three, capsys):
    assert main(["test", ".", "-x", "-j", "1", "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    ran = [r["id"] for r in doc["results"]]
    assert ran == ["wf0::add::one", "wf0::add::two", "wf1::add::one"]
    assert doc["summary"]["not_run"] == 3  # wf1::two and both of wf2, loaded after the stop


def test_a_keyword_matching_nothing_runs_nothing(three, monkeypatch, capsys):
    events, _ = _spy(monkeypatch)
    assert main(["test", ".", "-k", "nothing-has-this-name"]) == 2
    assert "no fixtures matched -k nothing-has-this-name" in capsys.readouterr().err
    assert not [e for e in events if e[0] == "run"]


def test_the_summary_counts_the_collection(three, monkeypatch, capsys):
    real_load = suite.load_workflow

    def slow_load(manifest, *a, **k):  # a slow disk: two seconds to load the first workflow
        if manifest.parent.name == "wf0":
            time.sleep(2.0)
        return real_load(manifest, *a, **k)

    monkeypatch.setattr(suite, "load_workflow", slow_load)
    main(["test", ".", "--format", "json"])
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["seconds"] >= summary["run_seconds"] + 1.9
    assert summary["fixtures_per_second"] == pytest.approx(6 / summary["run_seconds"], rel=0.02)
    main(["test", "."])
    out = capsys.readouterr().out
    total, ran = re.search(r"errors in ([\d.]+)s \(sandboxes ([\d.]+)s, [\d.]+ fixtures/s\)",
                           out).groups()
    assert float(total) >= float(ran) + 1.9, out


def test_junit_time_counts_the_collection(three, monkeypatch, capsys, tmp_path):
    import xml.etree.ElementTree as ET

    real_load = suite.load_workflow

    def slow_load(manifest, *a, **k):
        if manifest.parent.name == "wf0":
            time.sleep(2.0)
        return real_load(manifest, *a, **k)

    monkeypatch.setattr(suite, "load_workflow", slow_load)
    main(["test", ".", "--junit-xml", str(tmp_path / "j.xml")])
    capsys.readouterr()
    root = ET.parse(tmp_path / "j.xml").getroot()
    suite_el = root if root.tag == "testsuite" else root.find("testsuite")
    assert float(suite_el.get("time")) >= 2.0  # pytest's junit time is the session's
