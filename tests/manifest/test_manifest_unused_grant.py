"""SM209 unused-grant (a warning): a step granted a connection its function cannot use (it takes
no `connections`, and no effect of the step goes through it). Its fix removes the grant and is
safe: the credential could never reach the code, so the step computes the same (checked in
the sandbox), and it only narrows reach. Applied by `check --fix` and the editor alike."""

from __future__ import annotations

import json

import pytest
from stepsmith.runner.cli import main
from stepsmith.runner.manifest import check_workflow

MANIFEST = """workflow: demo
version: 1
python: "3.11"
trigger: {manual: {}}
connections:
  xero: {description: Ledger}
  slack: {description: Chat}
sources:
  requests: {kind: channel, channel: finance-requests}
effects:
  draft_bill: {connection: xero, kind: create, key: invoice_id}
  post_summary: {channel: finance-requests, kind: send, key: day}
steps:
  - id: summary
    explanation: Count the requests.
    code: steps/summary.py:summary
    inputs:
      matches: sources.requests
    connections: [xero, slack]
    effects: [draft_bill]
"""
SUMMARY = ('def summary(matches, effects):\n'
           '    effects.emit("draft_bill", {"invoice_id": "A"})\n'
           '    return len(matches)\n')


def write(tmp_path, manifest=MANIFEST, code=SUMMARY):
    (tmp_path / "steps").mkdir(exist_ok=True)
    (tmp_path / "workflow.yaml").write_text(manifest)
    (tmp_path / "steps" / "summary.py").write_text(code)
    return tmp_path


def found(tmp_path, **kw) -> list:
    return [p for p in check_workflow(write(tmp_path, **kw) / "workflow.yaml").all_problems]


def test_a_grant_the_function_cannot_use_is_a_warning_at_the_grant(tmp_path):
    (p,) = found(tmp_path)
    assert (p.code, p.severity, p.step) == ("SM209", "warning", "summary")
    line = MANIFEST.split("\n").index("    connections: [xero, slack]") + 1
    assert (p.span.line, p.span.column, p.span.end_column) == (line, 24, 29)
    assert "connection 'slack' is granted, but summary()" in p.message
    assert "takes no `connections`" in p.message


@pytest.mark.parametrize("what, manifest, code", [
    ("the function takes connections", MANIFEST,
     SUMMARY.replace("(matches, effects)", "(matches, connections, effects)")),
    ("each grant carries an effect", MANIFEST.replace("[xero, slack]", "[xero]"), SUMMARY),
    ("an undeclared name is SM101's", MANIFEST.replace("[xero, slack]", "[xero, slak]"), SUMMARY),
    ("an undeclared effect may go through it",
     MANIFEST.replace("effects: [draft_bill]", "effects: [draft_bill, notify]")
     .replace("[xero, slack]", "[xero]"), SUMMARY),
])
def test_no_warning_when_the_grant_may_be_used(tmp_path, what, manifest, code):
    assert "SM209" not in [p.code for p in found(tmp_path, manifest=manifest, code=code)], what


def test_an_effect_on_a_channel_uses_no_connection(tmp_path):
    manifest = MANIFEST.replace("[xero, slack]", "[xero]").replace(
        "effects: [draft_bill]", "effects: [post_summary]")
    code = SUMMARY.replace('"draft_bill", {"invoice_id": "A"}', '"post_summary", {"day": "d"}')
    assert [(p.code, p.message.split(" is ")[0]) for p in found(tmp_path, manifest=manifest,
                                                               code=code)] == \
        [("SM209", "connection 'xero'")]


def test_a_warning_passes_check_unless_strict(tmp_path, capsys):
    wf = write(tmp_path)
    assert main(["check", str(wf)]) == 0
    out = capsys.readouterr().out
    assert "SM209" in out and "[*] 1 fixable with the `--fix` option." in out
    assert main(["check", "--strict", str(wf)]) == 1


@pytest.mark.parametrize("grants, after", [
    ("connections: [xero, slack]", "connections: [xero]"),
    ("connections: [slack, xero]", "connections: [xero]"),
    ("connections:\n      - slack\n      - xero", "connections:\n      - xero"),
    ("connections:\n      - xero\n      - slack  # chat", "connections:\n      - xero\n"),
])
def test_check_fix_removes_the_grant(tmp_path, capsys, grants, after):
    wf = write(tmp_path, manifest=MANIFEST.replace("connections: [xero, slack]", grants))
    assert main(["check", "--fix", "--show-fixes", str(wf)]) == 0
    assert "1 × SM209 (Remove the grant of 'slack' (the step cannot use it))" in \
        capsys.readouterr().out
    text = (wf / "workflow.yaml").read_text()
    assert after in text and "slack]" not in text and "- slack" not in text
    assert found(tmp_path, manifest=text) == []


def test_the_only_grant_goes_with_its_key(tmp_path, capsys):
    manifest = MANIFEST.replace("[xero, slack]", "[slack]").replace(
        "    effects: [draft_bill]\n", "")
    wf = write(tmp_path, manifest=manifest, code="def summary(matches):\n    return len(matches)\n")
    assert main(["check", "--fix", str(wf)]) == 0
    capsys.readouterr()
    text = (wf / "workflow.yaml").read_text()
    assert "connections: [slack]" not in text and text.endswith("      matches: sources.requests\n")
    assert main(["reach", str(wf), "--format", "json"]) == 0
    (step,) = json.loads(capsys.readouterr().out)["workflows"][0]["steps"]
    assert step["connections"] == []  # reach narrowed


def test_the_editor_offers_the_same_safe_fix(tmp_path):
    from stepsmith.runner.app.fix import disk_snapshot
    from stepsmith.runner.fixes import apply_edits
    from stepsmith.runner.language.actions import quick_fixes
    from stepsmith.runner.language.fixall import fix_all
    from stepsmith.runner.workspace.diagnostics import diagnostics
    from stepsmith.runner.workspace.index import norm

    wf = write(tmp_path)
    m = norm(wf / "workflow.yaml")
    snap = disk_snapshot([m])
    (p,) = [p for p in diagnostics(snap, m) if p.code == "SM209"]
    (action,) = quick_fixes(snap, m, [p])
    assert (action.title, action.preferred, action.fix_kind) == (
        "Remove the grant of 'slack' (the step cannot use it)", True, "remove-grant")
    assert "connections: [xero]\n" in apply_edits(MANIFEST, action.changes[m])
    whole = fix_all(snap, m)
    assert whole is not None and "connections: [xero]\n" in apply_edits(MANIFEST, whole.changes[m])


def test_removing_the_grant_changes_no_outcome_in_the_sandbox(tmp_path, capsys, sandbox):
    wf = write(tmp_path)
    (wf / "fixtures" / "summary").mkdir(parents=True)
    case = {"inputs": {"matches": [1, 2, 3]}, "evaluation_time": "2026-12-01T07:00:00+00:00",
            "expected": {"output": 3, "effects": [
                {"effect": "draft_bill", "key": "A", "payload": {"invoice_id": "A"}}]}}
    (wf / "fixtures" / "summary" / "three.json").write_text(json.dumps(case))
    assert main(["test", str(wf)]) == 0
    assert "1 passed" in capsys.readouterr().out
    assert main(["check", "--fix", str(wf)]) == 0
    capsys.readouterr()
    assert "slack" not in (wf / "workflow.yaml").read_text().split("steps:")[1]
    assert main(["test", str(wf)]) == 0  # the same output and intents, without the grant
    assert "1 passed" in capsys.readouterr().out
