"""`stepsmith check --output-format ...`: every CI format carries the same findings as JSON,
field by field; SARIF validates against the official 2.1.0 schema; JUnit parses as XML."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from urllib.parse import unquote
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from manifest_kit import BASE, write_workflow
from stepsmith.runner import rules
from stepsmith.runner.cli import main
from stepsmith.runner.display import display_text

DATA = Path(__file__).parent / "data"
BROKEN_PY = ("import os\nimport json\n\n\ndef match(invoices, purchase_orders, tolerance):\n"
             "    x = invoices.__class__\n    return eval('1')\n")


@pytest.fixture
def broken(tmp_path, monkeypatch):
    write_workflow(tmp_path / "wf", BASE,
                   {"steps/match.py": BROKEN_PY,
                    "steps/bills.py": "def draft(matches, connections, effects):\n    return 1\n"})
    (tmp_path / "wf" / "workflow.yaml").write_text(
        (tmp_path / "wf" / "workflow.yaml").read_text().replace("  - id: draft\n",
                                                               "  - id: draft\n    \"col\\e]52;c;aGk=\\aour\": red\n"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *argv) -> tuple[int, str]:
    rc = main(["check", *argv])
    return rc, capsys.readouterr().out


def reference(capsys) -> list[dict]:
    rc, out = run(capsys, "--output-format", "json", "wf")
    assert rc == 1
    probs = json.loads(out)["problems"]
    assert len(probs) >= 4 and len({p["code"] for p in probs}) >= 4
    return probs


def test_json_findings_carry_their_rule_url(broken, capsys):
    for p in reference(capsys):
        assert p["url"] == rules.rule_url(p["code"]) and p["code"] in p["url"]


def test_format_is_an_alias_and_full_is_the_default(broken, capsys):
    assert run(capsys, "wf") == run(capsys, "--format", "full", "wf") == run(
        capsys, "--output-format", "text", "wf")


def test_json_lines_equal_json(broken, capsys):
    probs = reference(capsys)
    rc, out = run(capsys, "--output-format", "json-lines", "wf")
    assert rc == 1 and [json.loads(line) for line in out.splitlines()] == probs


def test_concise(broken, capsys):
    probs = reference(capsys)
    _rc, out = run(capsys, "--output-format", "concise", "wf")
    # text goes through the one display filter (issue 18): the broken key's OSC 52 is shown
    assert out.splitlines() == [display_text(f"{p['path']}:{p['line']}:{p['column'] + 1}: "
                                             f"{p['code']} {p['message']}") for p in probs]
    assert "\x1b" not in out and "\\x1b]52" in out


GH = re.compile(r"^::(error|warning) file=([^,]*),line=(\d+),col=(\d+),endLine=(\d+),"
                r"endColumn=(\d+),title=([^:]*)::(.*)$")


def test_github_workflow_commands_field_by_field(broken, capsys):
    probs = reference(capsys)
    rc, out = run(capsys, "--output-format", "github", "wf")
    lines = out.splitlines()
    assert rc == 1 and len(lines) == len(probs)
    for line, p in zip(lines, probs):
        m = GH.match(line)
        assert m, line
        level, file, ln, col, eln, ecol, title, msg = m.groups()
        assert (level, file, int(ln), int(col), int(eln), int(ecol), title) == (
            "error", p["path"], p["line"], p["column"] + 1, p["end_line"], p["end_column"] + 1,
            p["code"])
        unescaped = msg.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")
        assert unescaped == display_text(f"{p['code']} {p['message']}")
    assert "\x1b" not in out and "\x07" not in out


def test_github_escapes_what_would_end_a_command():
    from stepsmith.runner.cli.check_formats import Finding, render_github
    from stepsmith.runner.problems import Problem, Span

    p = Problem("SM003", "bad\nkey %0A, x::y", Span(1, 0, 1, 3))
    (line,) = render_github([Finding("a,b:c.yaml", p)]).splitlines()
    assert "file=a%2Cb%3Ac.yaml," in line and line.endswith("::SM003 bad%0Akey %250A, x::y")


def test_gitlab_code_quality_field_by_field_and_stable_fingerprints(broken, capsys):
    probs = reference(capsys)
    rc, out = run(capsys, "--output-format", "gitlab", "wf")
    report = json.loads(out)
    assert rc == 1 and len(report) == len(probs)
    for item, p in zip(report, probs):
        assert item["check_name"] == p["code"] and p["message"] in item["description"]
        assert item["severity"] in {"info", "minor", "major", "critical", "blocker"}
        assert item["location"]["path"] == p["path"]
        begin = item["location"]["positions"]["begin"]
        assert (begin["line"], begin["column"]) == (p["line"], p["column"] + 1)
        assert re.fullmatch(r"[0-9a-f]{64}", item["fingerprint"])
    assert len({i["fingerprint"] for i in report}) == len(report)
    # an unrelated edit that moves every finding keeps every fingerprint
    step = broken / "wf" / "steps" / "match.py"
    step.write_text('"""Docstring."""\n\n' + step.read_text())
    _rc, moved = run(capsys, "--output-format", "gitlab", "wf")
    assert {i["fingerprint"] for i in json.loads(moved)} == {i["fingerprint"] for i in report}


def test_sarif_validates_against_the_official_schema(broken, capsys):
    probs = reference(capsys)
    _rc, out = run(capsys, "--output-format", "sarif", "wf")
    doc = json.loads(out)
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(doc)
    (run_,) = doc["runs"]
    driver = run_["tool"]["driver"]
    ids = [r["id"] for r in driver["rules"]]
    assert set(ids) == {p["code"] for p in probs}
    for r in driver["rules"]:
        rule = rules.get(r["id"])
        assert "helpUri" not in r and rule.rationale in r["help"]["text"]
        assert ("security-severity" in r["properties"]) == rule.security
    assert len(run_["results"]) == len(probs)
    for res, p in zip(run_["results"], probs):
        assert ids[res["ruleIndex"]] == res["ruleId"] == p["code"]
        region = res["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (p["line"], p["column"] + 1)
        location = res["locations"][0]["physicalLocation"]["artifactLocation"]
        assert unquote(location["uri"]) == p["path"] and location["uriBaseId"] == "%SRCROOT%"
        assert res["partialFingerprints"]


def test_sarif_with_no_findings_is_valid(tmp_path, capsys, monkeypatch):
    write_workflow(tmp_path / "wf")
    monkeypatch.chdir(tmp_path)
    rc, out = run(capsys, "--output-format", "sarif", "wf")
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(json.loads(out))
    assert rc == 0


def test_junit_parses_with_hostile_text(broken, capsys):
    probs = reference(capsys)
    _rc, out = run(capsys, "--output-format", "junit", "wf")
    root = ET.fromstring(out.encode())
    failures = root.findall(".//failure")
    assert len(failures) == len(probs)
    assert {f.get("type") for f in failures} == {p["code"] for p in probs}
    assert "\x1b" not in out and "\x07" not in out


def test_junit_is_legal_xml_for_control_characters_and_surrogates():
    from stepsmith.runner.cli.check_formats import Finding, render_junit
    from stepsmith.runner.problems import Problem, Span

    p = Problem("SM003", "key '\x1b[2K\x07\x00\ud800' unknown", Span(1, 0, 1, 3))
    out = render_junit([Finding("w\x1b.yaml", p)], ["w\x1b.yaml"])
    ET.fromstring(out.encode("utf-8"))
    assert "\\x1b" in out


def test_statistics_count_per_rule(broken, capsys):
    probs = reference(capsys)
    rc, out = run(capsys, "--statistics", "wf")
    want = Counter(p["code"] for p in probs)
    got = {}
    for line in out.splitlines():
        count, code, *_ = line.split("\t")
        got[code] = int(count)
    assert rc == 1 and got == want
    rc, out = run(capsys, "--statistics", "--output-format", "json", "wf")
    stats = json.loads(out)
    assert {s["code"]: s["count"] for s in stats} == want
    assert [s["count"] for s in stats] == sorted((s["count"] for s in stats), reverse=True)
    assert any(s["fixable"] for s in stats)  # the forbidden import has a fix


# --- issue: every output read as its real consumer reads it -----------------------------------
HOSTILE_PATH = "with space/pct%41/odd%,'\"<&>/naïve🎉/nl\nx.py"


def test_sarif_uris_are_percent_encoded_references_under_srcroot(tmp_path, monkeypatch):
    """A raw path is not a URI: GitHub decodes `pct%41` as `pctA`, and `odd%,` makes its
    upload throw. Relative references, percent-encoded, resolved against %SRCROOT%."""
    from stepsmith.runner.cli.check_formats import Finding, render_sarif
    from stepsmith.runner.problems import Problem, Span

    monkeypatch.chdir(tmp_path)
    p = Problem("SS101", "module `os` is not allowed", Span(1, 7, 1, 9))
    doc = json.loads(render_sarif([Finding(HOSTILE_PATH, p), Finding("/elsewhere/a b.py", p)],
                                  version="0"))
    (run_,) = doc["runs"]
    inside, outside = (r["locations"][0]["physicalLocation"]["artifactLocation"]
                       for r in run_["results"])
    assert inside == {"uri": "with%20space/pct%2541/odd%25%2C%27%22%3C%26%3E/na%C3%AFve%F0%9F"
                             "%8E%89/nl%0Ax.py", "uriBaseId": "%SRCROOT%"}
    assert unquote(inside["uri"]) == HOSTILE_PATH
    assert outside == {"uri": "file:///elsewhere/a%20b.py"}
    assert run_["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.as_uri() + "/"}}


def test_sarif_embeds_each_rules_help_and_links_to_no_local_file(broken, capsys):
    """A `file://` helpUri names a file on the CI host, useless to the reader of the alert:
    the rule's page is embedded instead, as text (what `stepsmith rule CODE` prints) and
    markdown (the page of docs/rules/)."""
    from stepsmith.runner.rules.pages import page, text

    _rc, out = run(capsys, "--output-format", "sarif", "wf")
    assert "file://" not in out.replace(Path.cwd().as_uri() + "/", "")
    driver = json.loads(out)["runs"][0]["tool"]["driver"]
    assert driver["rules"]
    for r in driver["rules"]:
        rule = rules.get(r["id"])
        assert "helpUri" not in r
        assert r["help"] == {"text": text(rule), "markdown": page(rule, index_link=False)}
        assert rule.rationale in r["help"]["markdown"]


def test_rule_command_prints_the_rules_text(capsys):
    from stepsmith.runner.rules.pages import text

    assert main(["rule", "SS201"]) == 0
    assert capsys.readouterr().out == text(rules.get("SS201")) + "\n"


JUNIT_XSD = Path(__file__).parents[1] / "reference" / "data" / "junit-10.xsd"


def test_junit_counts_add_up_and_validate_against_jenkins_schema(tmp_path, capsys,
                                                                 monkeypatch):
    """The root's `tests` counts every case (a clean file's passing case too); suites carry
    `errors` (required by Jenkins' junit-10.xsd); test cases carry no `file`/`line` (not in
    that schema; pytest's default xunit2 family leaves them out)."""
    import xmlschema

    write_workflow(tmp_path / "clean")
    write_workflow(tmp_path / "bad", BASE, {"steps/match.py": BROKEN_PY,
                                            "steps/bills.py": BILLS_OK})
    monkeypatch.chdir(tmp_path)
    rc, out = run(capsys, "--output-format", "junit", ".")
    root = ET.fromstring(out.encode())
    cases = root.findall("testsuite/testcase")
    assert rc == 1 and len(cases) > len(root.findall(".//failure")) > 0
    assert int(root.get("tests")) == len(cases)
    assert int(root.get("failures")) == len(root.findall(".//failure"))
    for suite in root.findall("testsuite"):
        assert int(suite.get("tests")) == len(suite.findall("testcase"))
        assert int(suite.get("failures")) == len(suite.findall(".//failure"))
        assert suite.get("errors") == "0"
    assert all(c.get("file") is None and c.get("line") is None for c in cases)
    xmlschema.XMLSchema(JUNIT_XSD).validate(out)


BILLS_OK = "def draft(matches, connections, effects):\n    return 1\n"


STALE = {"inputs": {"total": {"sum": "9.99"}}, "evaluation_time": "2026-12-01T07:00:00+00:00",
         "expected": {"output": {"twice": "19.98"}, "effects": []},
         "recorded_from": {"case": "day1", "upstream": {"add": {"fixture": "x",
                                                                "request_sha256": "0" * 64}}}}


@pytest.mark.parametrize("fmt", ["concise", "json-lines", "github", "gitlab", "sarif", "junit"])
def test_every_format_carries_the_stale_fixture_warnings_strict_fails_on(fmt, tmp_path, kit,
                                                                          capsys, monkeypatch):
    """SF001 decides `--strict`'s exit status: every format shows it, at the stale input."""
    kit.write_workflow(tmp_path / "wf", fixtures={"add/x": kit.add_case("1.00", None, "1.50"),
                                                  "double/wired": STALE})
    monkeypatch.chdir(tmp_path)
    rc, out = run(capsys, "--output-format", fmt, "--no-cache", "wf")
    assert rc == 0 and "SF001" in out and "wf/fixtures/double/wired.json" in out
    assert run(capsys, "--output-format", fmt, "--no-cache", "--strict", "wf")[0] == 1
    if fmt == "json-lines":
        (p,) = [json.loads(line) for line in out.splitlines()]
        assert (p["code"], p["severity"], p["line"], p["column"]) == ("SF001", "warning", 3, 4)
        assert p["path"] == "wf/fixtures/double/wired.json"
    rc, stats = run(capsys, "--statistics", "--output-format", fmt, "--no-cache", "wf")
    assert "SF001" in stats and rc == 0


def test_a_backslash_in_a_posix_name_is_part_of_the_name():
    """`back\\slash/x.py` is one folder on Linux: written as `back/slash`, every format named
    another file (found by the differential tests against GitHub's and GitLab's readers)."""
    from urllib.parse import unquote

    from stepsmith.runner.cli.check_formats import (
        Finding,
        render_github,
        render_gitlab,
        render_sarif,
    )
    from stepsmith.runner.problems import Problem, Span

    f = Finding("back\\slash/x.py", Problem("SS101", "m", Span(1, 0, 1, 1)))
    assert "file=back\\slash/x.py," in render_github([f])
    assert json.loads(render_gitlab([f]))[0]["location"]["path"] == "back\\slash/x.py"
    uri = json.loads(render_sarif([f], version="0"))["runs"][0]["results"][0]["locations"][0][
        "physicalLocation"]["artifactLocation"]["uri"]
    assert unquote(uri) == "back\\slash/x.py"


def test_files_read_from_disk_drop_their_byte_order_mark_as_they_decode(tmp_path, capsys,
                                                                         monkeypatch):
    """A file's BOM is encoding, not text: `check` counts columns as an editor shows the file,
    for step files as for manifests (a buffer that keeps it is another matter: the server)."""
    write_workflow(tmp_path / "wf", "\ufeff" + BASE.replace("workflow:", "workflw:", 1),
                   {"steps/match.py": "\ufeffimport os\n" + BROKEN_PY.split("\n", 1)[1],
                    "steps/bills.py": BILLS_OK})
    monkeypatch.chdir(tmp_path)
    _rc, out = run(capsys, "--output-format", "json", "--no-cache", "wf")
    found = {(p["code"], p["path"]): (p["line"], p["column"]) for p in json.loads(out)["problems"]}
    assert found[("SS101", "wf/steps/match.py")] == (1, 7)
    assert found[("SM003", "wf/workflow.yaml")] == (1, 0)
