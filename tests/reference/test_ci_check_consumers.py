"""`stepsmith check --output-format` read by the programs that really read each format, on the
hostile-name corpus (tests/reference/cicorpus.py: spaces, `%`, quotes, `<&`, non-ASCII, emoji,
newlines, very long lines, a broken manifest, many findings, a stale wired fixture) and on a
tree with no finding. The reference for what each must carry is `--output-format json`
(problems and the SF001 warnings):

- github: the workflow commands @actions/core (GitHub's toolkit) writes for the same
  annotations, property by property (our control-character filter applied to both sides);
- gitlab: each degradation valid against the schema GitLab validates it with, read as GitLab
  reads it (path, begin line; degradations keyed by fingerprint, so no two may share one);
- sarif: the OASIS SARIF 2.1.0 schema, SARIF Multitool's `validate` (no error), and every
  artifact URI decoded as GitHub's upload decodes it (decodeURIComponent) to the path;
- junit: Jenkins' junit-10.xsd, and junitparser's totals equal to the findings."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import wfkit as wfkit
import xmlschema
from cicorpus import figure, write_check_corpus
from junitparser import JUnitXml
from stepsmith.runner.display import display_text

HERE = Path(__file__).parent
NODE = HERE / "node"
DATA = HERE / "data"
STEPSMITH = Path(sys.executable).with_name("stepsmith")
MULTITOOL = NODE / "node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
STALE = {"inputs": {"total": {"sum": "9.99"}}, "evaluation_time": "2026-12-01T07:00:00+00:00",
         "expected": {"output": {"twice": "19.98"}, "effects": []},
         "recorded_from": {"case": "day1", "upstream": {"add": {"fixture": "x",
                                                                "request_sha256": "0" * 64}}}}


def node(*argv: str, stdin: object = None) -> str:
    done = subprocess.run(["node", str(NODE / "consumers.mjs"), *argv], capture_output=True,
                          text=True, input=None if stdin is None else json.dumps(stdin),
                          check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def check(cwd: Path, fmt: str) -> tuple[int, str]:
    done = subprocess.run([STEPSMITH, "check", "--no-cache", "--output-format", fmt, "."],
                          cwd=cwd, capture_output=True, check=False)
    return done.returncode, done.stdout.decode("utf-8")


@functools.cache
def findings(cwd: Path) -> list[dict]:
    """What every format must carry: json's problems, then its SF001 warnings as findings."""
    _rc, out = check(cwd, "json")
    doc = json.loads(out)
    stale = [{"code": w["code"], "path": w["fixture"], "severity": "warning",
              "message": w["message"].removeprefix("SF001 "),
              **{k: w[k] for k in ("line", "column", "end_line", "end_column")}}
             for w in doc["warnings"]]
    return doc["problems"] + stale


@pytest.fixture(scope="module", params=["hostile corpus", "no finding"])
def tree(request, tmp_path_factory):
    root = tmp_path_factory.mktemp("check") / "repo"
    root.mkdir()
    if request.param == "no finding":
        wfkit.write_workflow(root / "clean")
        return root
    write_check_corpus(root)
    wfkit.write_workflow(root / "stale wired", fixtures={
        "add/x": wfkit.add_case("1.00", None, "1.50"), "double/wired": STALE})
    return root


def test_the_reference_holds_what_the_corpus_promises(tree):
    found = findings(tree)
    if tree.joinpath("clean").is_dir():
        assert found == []
    else:
        assert len(found) > 150 and {"SF001", "SM001", "SS101", "SM003", "SS201"} <= {
            f["code"] for f in found}
        assert any("\n" in f["path"] for f in found) and any("🎉" in f["path"] for f in found)


def _command(line: str) -> tuple[str, dict, str]:
    head, message = line[2:].split("::", 1)
    name, _, props = head.partition(" ")
    return name, dict(p.split("=", 1) for p in props.split(",")) if props else {}, message


def test_github_annotations_are_what_actions_core_writes(tree):
    want = findings(tree)
    _rc, out = check(tree, "github")
    ours = out.splitlines()
    specs = [{"level": "warning" if f["severity"] == "warning" else "error",
              "message": display_text(f"{f['code']} {f['message']}"), "title": f["code"],
              "file": display_text(f["path"]), "startLine": f["line"],
              "startColumn": f["column"] + 1, "endLine": f["end_line"],
              "endColumn": f["end_column"] + 1} for f in want]
    theirs = node("annotate", stdin=specs).splitlines() if specs else []
    assert len(ours) == len(theirs) == len(want)
    for a, b in zip(ours, theirs):
        a_cmd, b_cmd = _command(a), _command(b)
        figure("GitHub annotations vs @actions/core", a_cmd == b_cmd)
        assert a_cmd == b_cmd


def test_gitlab_code_quality_as_gitlab_reads_it(tree):
    want = findings(tree)
    _rc, out = check(tree, "gitlab")
    report = json.loads(out)
    schema = json.loads((DATA / "codeclimate.schema.json").read_text())
    assert len(report) == len(want)
    # GitLab keys degradations by fingerprint: a shared one would drop a finding
    assert len({d["fingerprint"] for d in report}) == len(report)
    for d, f in zip(report, want):
        jsonschema.Draft7Validator(schema).validate(d)
        loc = d["location"]
        line = loc.get("lines", {}).get("begin") or loc["positions"]["begin"]["line"]
        agreed = loc["path"] == f["path"] and line == f["line"]
        figure("GitLab Code Quality (schema + reading)", agreed)
        assert agreed, (d, f)


def test_sarif_is_valid_for_the_schema_and_multitool_and_decodes_to_the_paths(tree, tmp_path):
    want = findings(tree)
    _rc, out = check(tree, "sarif")
    doc = json.loads(out)
    schema = json.loads((HERE.parent / "cli" / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(doc)
    (run,) = doc["runs"]
    assert len(run["results"]) == len(want)
    (tmp_path / "out.sarif").write_text(out, encoding="utf-8")
    done = subprocess.run([MULTITOOL, "validate", str(tmp_path / "out.sarif"), "-o",
                           str(tmp_path / "validation.sarif"), "--log", "ForceOverwrite"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    verdicts = json.loads((tmp_path / "validation.sarif").read_text())["runs"][0]["results"]
    errors = [v for v in verdicts if v.get("level") == "error"]
    # the only warning: no https page about the tool (we have none to name)
    assert {v["ruleId"] for v in verdicts} <= {"SARIF2005"}
    figure("SARIF Multitool validate (documents)", not errors)
    assert not errors, errors
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in
                 run["results"]]
    decoded = json.loads(node("decode-uris", stdin=[loc["uri"] for loc in locations]))
    for loc, got, f in zip(locations, decoded, want):
        agreed = got == {"path": f["path"]} and loc["uriBaseId"] == "%SRCROOT%"
        figure("SARIF URIs as GitHub's upload decodes them", agreed)
        assert agreed, (loc, got, f["path"])
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tree.as_uri() + "/"


def test_junit_is_jenkins_junit_10_and_junitparser_reads_the_findings(tree):
    want = findings(tree)
    _rc, out = check(tree, "junit")
    xmlschema.XMLSchema(DATA / "junit-10.xsd").validate(out)
    xml = JUnitXml.fromstring(out)
    suites = list(xml)
    cases = [c for s in suites for c in s]
    failed = [c for c in cases if not c.is_passed]
    numbers = (int(xml.tests), int(xml.failures), int(xml.errors),
               sum(s.tests for s in suites), sum(s.failures for s in suites))
    agreed = numbers == (len(cases), len(want), 0, len(cases), len(want))
    figure("JUnit (check) via junitparser: totals", agreed)
    assert agreed and len(failed) == len(want), numbers
