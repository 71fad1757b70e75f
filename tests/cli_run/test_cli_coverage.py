"""`stepsmith test --coverage` (coverage.py's report shape, --coverage-json, --lcov)
and `--repeat N` (the determinism check), through the CLI on real sandboxes."""

import json

import pytest

pytestmark = pytest.mark.usefixtures("sandbox")

BRANCHY = '''\
def classify(amounts):
    total = 0
    for a in amounts:
        total += a
    if total > 100:
        return "big"
    return "small"
'''
AT = "2026-12-01T07:00:00+00:00"


@pytest.fixture
def run(kit):
    return lambda capsys, *argv: kit.cli(capsys, "test", *argv)


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    m = kit.demo_manifest(steps=[{"id": "classify", "explanation": "Big or small.",
                                  "code": "steps/classify.py:classify",
                                  "inputs": {"amounts": "sources.numbers"}}])
    # one fixture, taking only the "small" branch
    return kit.write_workflow(tmp_path / "wf", m, {"steps/classify.py": BRANCHY}, {
        "classify/small": {"inputs": {"amounts": [1, 2]}, "evaluation_time": AT,
                           "expected": {"output": "small", "effects": []}}})


def test_coverage_report_names_the_missing_line_and_branch(run, wf, capsys):
    fixture = (wf / "fixtures/classify/small.json").read_text()
    code, out, _ = run(capsys, "wf", "--coverage")
    assert code == 0
    row = next(line for line in out.splitlines() if "classify.py" in line)
    # 7 statements (the def line runs at import), line 6 never ran; of 4 branch arcs the
    # one 5->6 was never taken: (6 + 3) / (7 + 4) = 82%, coverage.py's formula
    assert row.split()[1:6] == ["7", "1", "4", "1", "82%"], row
    # coverage.py's Missing column: 5->6 is left out, line 6 itself says it
    assert row.rstrip().endswith("   6"), row
    assert "TOTAL" in out
    assert (wf / "fixtures/classify/small.json").read_text() == fixture  # nothing stored
    assert not (wf / ".stepsmith" / "pending").exists()


def with_untested_step(kit, folder, explanation: str, untested_code: str) -> None:
    """A workflow of `classify` (BRANCHY, one fixture) and `untested` (no fixture) in `folder`."""
    m = kit.demo_manifest(steps=[
        {"id": "classify", "explanation": "Big or small.", "code": "steps/classify.py:classify",
         "inputs": {"amounts": "sources.numbers"}},
        {"id": "untested", "explanation": explanation, "code": "steps/untested.py:untested",
         "inputs": {"amounts": "sources.numbers"}}])
    files = {"steps/classify.py": BRANCHY, "steps/untested.py": untested_code}
    kit.write_workflow(folder, m, files, {
        "classify/small": {"inputs": {"amounts": [1, 2]}, "evaluation_time": AT,
                           "expected": {"output": "small", "effects": []}}})


def test_a_step_file_no_fixture_ran_is_reported_at_zero(run, tmp_path, kit, capsys, monkeypatch):
    """As coverage.py reports a source file nothing imported: the untested step is the finding."""
    monkeypatch.chdir(tmp_path)
    with_untested_step(kit, tmp_path / "wf", "No fixture yet.",
                       BRANCHY.replace("classify", "untested"))
    code, out, _ = run(capsys, "wf", "--coverage")
    assert code == 0, out
    row = next(line for line in out.splitlines() if "untested.py" in line)
    # nothing ran: 7 statements missing, 4 branch arcs, none partial (no branch line ran)
    assert row.split()[1:6] == ["7", "7", "4", "0", "0%"], row
    assert row.rstrip().endswith("1-7"), row
    code, out, _ = run(capsys, "wf", "--coverage", "--format", "json")
    files = json.loads(out)["coverage"]["files"]
    assert sorted(files) == ["wf/steps/classify.py", "wf/steps/untested.py"]
    assert files["wf/steps/untested.py"]["summary"]["covered_lines"] == 0


def test_coverage_json_and_lcov_files_and_json_mode(run, wf, capsys, tmp_path):
    code, out, _ = run(capsys, "wf", "--coverage-json", tmp_path / "c.json",
                       "--lcov", tmp_path / "c.lcov", "--format", "json")
    assert code == 0
    doc = json.loads(out)  # one JSON document, with the coverage in it
    data = json.loads((tmp_path / "c.json").read_text())
    assert doc["coverage"] == data
    assert "coverage" not in doc["results"][0]["result"]  # never in the stored result shape
    lcov = (tmp_path / "c.lcov").read_text()
    assert "SF:wf/steps/classify.py" in lcov and "DA:6,0" in lcov and "end_of_record" in lcov
    brda5 = [line for line in lcov.splitlines() if line.startswith("BRDA:5,")]
    assert len(brda5) == 2 and sum(line.endswith((",-", ",0")) for line in brda5) == 1, brda5


def test_an_unwritable_report_file_stops_before_running(run, wf, capsys, tmp_path):
    code, _, err = run(capsys, "wf", "--lcov", tmp_path / "no" / "such" / "c.lcov")
    assert code == 2 and "cannot write" in err


def test_repeat_agrees_for_the_dialect(run, wf, capsys):
    code, out, _ = run(capsys, "wf", "--repeat", "3")
    assert code == 0 and "1 passed" in out


def test_repeat_zero_is_a_usage_error(run, wf, capsys):
    code, _, err = run(capsys, "wf", "--repeat", "0")
    assert code == 2 and "--repeat" in err


def test_repeat_reports_runs_that_disagree(run, wf, capsys, monkeypatch):
    # the dialect is deterministic in the sandbox (tests/sandbox/test_sandbox_repeat.py), so
    # the disagreement is made after the real runs: the second run's output differs
    from stepsmith.runner.app import invocations

    real, calls = invocations.invoke, []

    def second_differs(*a, **kw):
        res = real(*a, **kw)
        calls.append(1)
        if len(calls) == 2:
            res.output = "big"
        return res

    monkeypatch.setattr(invocations, "invoke", second_differs)
    code, out, _ = run(capsys, "wf", "--repeat", "2", "--format", "json")
    assert code == 1 and len(calls) == 2
    (r,) = json.loads(out)["results"]
    assert r["outcome"] == "failed"
    assert any("not deterministic" in m for m in r["messages"])
    assert not (wf / ".stepsmith" / "pending").exists()  # not an output to accept


@pytest.mark.parametrize("bad", [
    "def untested(amounts:\n    return 1\n",  # a syntax error
    "def untested(amounts):\n    return " + " + ".join(["amounts"] * 5000) + "\n",  # too deep
], ids=["syntax-error", "too-deep-to-parse"])
def test_a_step_file_that_does_not_parse_is_left_out_not_a_crash(bad, run, tmp_path, kit,
                                                                  capsys, monkeypatch):
    """As coverage.py skips a source file it cannot parse: the others are reported; the
    broken file is the workflow check's finding, never an internal error of the report."""
    monkeypatch.chdir(tmp_path)
    with_untested_step(kit, tmp_path / "wf", "Broken.", bad)
    code, out, err = run(capsys, "wf", "--coverage", "--coverage-json", tmp_path / "c.json")
    assert code != 2 and "internal error" not in err, err
    assert "untested.py" not in out.split("Name", 1)[-1]
    files = json.loads((tmp_path / "c.json").read_text())["files"]
    assert list(files) == ["wf/steps/classify.py"] or files == {}


def test_lcov_leaves_out_a_file_whose_path_holds_a_newline_and_says_so(run, tmp_path, kit,
                                                                       capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    m = kit.demo_manifest(steps=[{"id": "classify", "explanation": "Big or small.",
                                  "code": "steps/classify.py:classify",
                                  "inputs": {"amounts": "sources.numbers"}}])
    fixtures = {"classify/small": {"inputs": {"amounts": [1, 2]}, "evaluation_time": AT,
                                   "expected": {"output": "small", "effects": []}}}
    kit.write_workflow(tmp_path / "nl\nwf", m, {"steps/classify.py": BRANCHY}, fixtures)
    kit.write_workflow(tmp_path / "wf", m, {"steps/classify.py": BRANCHY}, fixtures)
    code, out, err = run(capsys, ".", "--lcov", tmp_path / "c.lcov")
    lcov = (tmp_path / "c.lcov").read_text()
    assert code == 0 and lcov.count("SF:") == 1 and "SF:wf/steps/classify.py\n" in lcov
    assert "nl" not in lcov
    warning = "--lcov: left out 1 file whose path LCOV cannot hold (a line break): " \
              "nl\\nwf/steps/classify.py"
    assert warning in err and warning in out  # named on stderr and in the summary
