"""`stepsmith test`'s CI reports read by the programs that read them, on workflows with hostile
names (tests/reference/cicorpus.py) whose fixtures pass, fail, error and are served from their
recording, plus a workflow whose manifest does not parse:

- `--junit-xml`: valid against Jenkins' junit-10.xsd; junitparser's totals are the numbers of
  `--format json`;
- `--lcov`: Debian's `lcov` (`--summary`, `--list`, `--add-tracefile`) and `genhtml` read it
  without a warning and count the lines and branches `--coverage-json` counts, for every file
  LCOV can name (a path with a line break is left out, and the run says so);
- `--shard K/N`: each shard is the group pytest-split's least_duration algorithm gives."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import xmlschema
from cicorpus import HOSTILE, figure, write_test_corpus
from hypothesis import given, settings
from hypothesis import strategies as st
from junitparser import JUnitXml

HERE = Path(__file__).parent
STEPSMITH = Path(sys.executable).with_name("stepsmith")
LCOV_RC = ["--rc", "lcov_branch_coverage=1"]
pytestmark = pytest.mark.usefixtures("sandbox")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("test") / "repo"
    root.mkdir()
    write_test_corpus(root, [n for n in HOSTILE if n not in ("tab\tname", "back\\slash")])
    broken = root / "broken manifest"
    broken.mkdir()
    (broken / "workflow.yaml").write_text("workflow: broken\nsteps: [\n", encoding="utf-8")
    done = subprocess.run([STEPSMITH, "test", ".", "--junit-xml", "j.xml", "--lcov", "c.lcov",
                           "--coverage-json", "c.json", "--format", "json", "-j", "2"],
                          cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr[-3000:]
    return root, json.loads(done.stdout), done.stderr


def test_the_run_has_every_outcome(run):
    _root, doc, _err = run
    s = doc["summary"]
    assert s["passed"] > 0 and s["failed"] > 0 and s["error"] > 0 and s["recorded"] > 0


def test_junit_xml_is_jenkins_junit_10_and_junitparser_reads_the_json_numbers(run):
    root, doc, _err = run
    text = (root / "j.xml").read_text(encoding="utf-8")
    xmlschema.XMLSchema(HERE / "data" / "junit-10.xsd").validate(text)
    xml = JUnitXml.fromfile(str(root / "j.xml"))
    (suite,) = list(xml)
    s = doc["summary"]
    want = (s["total"], s["failed"], s["error"], s["recorded"])
    for what, got in (("root", (xml.tests, xml.failures, xml.errors, None)),
                      ("suite", (suite.tests, suite.failures, suite.errors, suite.skipped))):
        agreed = got[:3] == want[:3] and got[3] in (None, want[3])
        figure(f"JUnit (test --junit-xml) via junitparser: {what} totals", agreed)
        assert agreed, (what, got, want)
    outcomes = {"passed": 0, "failed": 0, "error": 0, "recorded": 0}
    for case in suite:
        result = case.result
        kind = "passed" if not result else {"Failure": "failed", "Error": "error",
                                            "Skipped": "recorded"}[type(result[0]).__name__]
        outcomes[kind] += 1
    assert outcomes == {k: s[k] for k in outcomes}


def _lcov(*argv: str, cwd: Path) -> str:
    done = subprocess.run(["lcov", *LCOV_RC, *argv], cwd=cwd, capture_output=True, text=True,
                          check=False)
    out = done.stdout + done.stderr
    assert done.returncode == 0 and "WARNING" not in out.upper(), out
    return out


def _numbers(summary: str) -> tuple[int, int, int, int]:
    lines = re.search(r"lines\.+: [\d.]+% \((\d+) of (\d+) lines\)", summary)
    branches = re.search(r"branches\.+: [\d.]+% \((\d+) of (\d+) branches\)", summary)
    return (int(lines[1]), int(lines[2]), int(branches[1]), int(branches[2]))


def test_lcov_and_genhtml_read_the_tracefile_as_the_json_counts_it(run, tmp_path):
    root, _doc, err = run
    cov = json.loads((root / "c.json").read_text())["files"]
    named = {p: f["summary"] for p, f in cov.items() if "\n" not in p}
    assert len(named) < len(cov)  # the corpus has a file LCOV cannot name
    assert "--lcov: left out" in err and "nl\\nfolder" in err
    want = (sum(f["covered_lines"] for f in named.values()),
            sum(f["num_statements"] for f in named.values()),
            sum(f["covered_branches"] for f in named.values()),
            sum(f["num_branches"] for f in named.values()))
    got = _numbers(_lcov("--summary", "c.lcov", cwd=root))
    figure("lcov --summary (lines, branches) vs --coverage-json", got == want)
    assert got == want
    listed = _lcov("--list-full-path", "--list", "c.lcov", cwd=root)
    rows = {line.split("|")[0].strip() for line in listed.splitlines() if "|" in line}
    for path in named:
        ok = str(root / path) in rows or path in rows
        figure("lcov --list (files)", ok)
        assert ok, (path, listed)
    merged = tmp_path / "merged.lcov"
    _lcov("--add-tracefile", str(root / "c.lcov"), "--add-tracefile", str(root / "c.lcov"),
          "-o", str(merged), cwd=root)
    doubled = _numbers(_lcov("--summary", str(merged), cwd=root))
    assert doubled == want  # the same files twice: the same covered and found counts
    html = tmp_path / "html"
    done = subprocess.run(["genhtml", *LCOV_RC, "--branch-coverage", "c.lcov", "-o", str(html)],
                          cwd=root, capture_output=True, text=True, check=False)
    out = done.stdout + done.stderr
    ok = done.returncode == 0 and "WARNING" not in out.upper() and (html / "index.html").is_file()
    figure("genhtml (reports written without a warning)", ok)
    assert ok, out
    assert _numbers(out) == want  # genhtml's "Overall coverage rate"


@settings(max_examples=61, deadline=None)
@given(st.lists(st.floats(0, 50, allow_nan=False), min_size=1, max_size=40),
       st.integers(1, 8), st.data())
def test_shards_are_pytest_splits_least_duration_groups(costs, n, data):
    """`--shard K/N` (runner/fixtures/shard.py) against pytest-split's own algorithm: the
    same fixtures in each group, for durations known for some fixtures and not others."""
    from pytest_split.algorithms import Algorithms
    from stepsmith.runner.fixtures.shard import partition

    ids = [f"wf::step::case{i:03d}" for i in range(len(costs))]
    known = data.draw(st.lists(st.booleans(), min_size=len(ids), max_size=len(ids)))
    durations = {i: c for i, c, k in zip(ids, costs, known) if k}

    class Item:  # pytest-split reads `nodeid`, and breaks ties by the item's text
        def __init__(self, nodeid: str) -> None:
            self.nodeid = nodeid

        def __repr__(self) -> str:
            return self.nodeid

    items = [Item(i) for i in ids]
    groups = Algorithms.least_duration.value(n, items, durations)
    theirs = [sorted(ids.index(it.nodeid) for it in g.selected) for g in groups]
    ours = partition(ids, durations, n)
    figure("--shard vs pytest-split least_duration (partitions)", ours == theirs)
    assert ours == theirs
