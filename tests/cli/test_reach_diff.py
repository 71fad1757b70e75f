"""`stepsmith reach --diff REV`: what a change widens, against real git repositories made here."""

from __future__ import annotations

import json

import pytest
from gitkit import committed_workflow, git
from manifest_kit import BASE, write_workflow
from stepsmith.runner.cli import main
from stepsmith.runner.reach import REACH_SENTENCE


@pytest.fixture
def repo(tmp_path):
    return committed_workflow(tmp_path)


def run_json(capsys, *argv) -> tuple[int, dict]:
    rc = main(["reach", *argv, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


def changes(data) -> list[tuple[str, str, bool]]:
    return [(c["kind"], c["step"], c["widens"]) for w in data["workflows"] for c in w["changes"]]


def test_no_change_says_so_in_every_format(repo, capsys):
    assert main(["reach", "--diff", str(repo)]) == 0
    assert "No change in what any step can reach" in capsys.readouterr().out
    assert main(["reach", "--diff", "HEAD", "--format", "markdown", str(repo)]) == 0
    md = capsys.readouterr().out
    assert "No change in what any step can reach" in md and REACH_SENTENCE in md
    rc, data = run_json(capsys, "--diff", "HEAD", str(repo))
    assert rc == 0 and data["widens"] is False and changes(data) == []


def test_network_connection_effect_and_new_step_widen(repo, capsys):
    text = BASE.replace(
        "  - id: draft\n",
        "    network: public_egress\n"
        "    connections: [xero]\n"
        "  - id: draft\n") + (
        "  - id: notify\n"
        "    explanation: Tell the team.\n"
        "    code: steps/n.py:notify\n"
        "    inputs: {drafts: steps.draft.output}\n"
        "    effects: [draft_bill]\n"
        "  - id: tally\n"
        "    explanation: Count.\n"
        "    code: steps/t.py:tally\n")
    (repo / "wf" / "workflow.yaml").write_text(text)
    rc, data = run_json(capsys, "--diff", "HEAD", str(repo))
    assert rc == 0  # widening alone does not fail without --fail-on-widen
    got = changes(data)
    assert ("network", "match", True) in got
    assert ("connection-granted", "match", True) in got
    assert ("step-added", "notify", True) in got
    assert ("step-added", "tally", False) in got  # a new step reaching nothing does not widen
    assert data["widens"] is True
    assert main(["reach", "--diff", "HEAD", "--fail-on-widen", str(repo)]) == 1
    out = capsys.readouterr().out
    assert "match: network: none → public egress" in out and "+ notify" in out


def test_narrowing_is_shown_but_never_fails_the_gate(repo, capsys):
    text = BASE.replace("    connections: [xero]\n    effects: [draft_bill]\n", "")
    (repo / "wf" / "workflow.yaml").write_text(text)
    rc, data = run_json(capsys, "--diff", "HEAD", "--fail-on-widen", str(repo))
    assert rc == 0
    assert set(changes(data)) == {("connection-revoked", "draft", False),
                                  ("effect-removed", "draft", False)}


def test_renamed_step_and_moved_manifest_are_matched(repo, capsys):
    (repo / "flows").mkdir()
    git(repo, "mv", "wf", "flows/matching")
    man = repo / "flows" / "matching" / "workflow.yaml"
    man.write_text(man.read_text().replace("id: draft", "id: draft_bills")
                   .replace("steps.match.output", "steps.match.output"))
    rc, data = run_json(capsys, "--diff", "HEAD", str(repo))
    assert rc == 0
    (w,) = [w for w in data["workflows"] if w["status"] != "unchanged"]
    assert w["before_path"] == "wf/workflow.yaml" and w["path"] == "flows/matching/workflow.yaml"
    assert changes(data) == [("step-renamed", "draft_bills", False)]


def test_source_read_and_source_origin_change_widen(repo, capsys):
    text = BASE.replace("purchase_orders: {connection: xero}",
                        "purchase_orders: {kind: channel, channel: pofeed}")
    text = text.replace("      matches: steps.match.output\n",
                        "      matches: steps.match.output\n"
                        "      invoices: sources.invoices\n")
    (repo / "wf" / "workflow.yaml").write_text(text)
    (repo / "wf" / "steps" / "bills.py").write_text(
        "def draft(matches, invoices, connections, effects):\n    return 0\n")
    _rc, data = run_json(capsys, "--diff", "HEAD", str(repo))
    got = changes(data)
    assert ("source-added", "draft", True) in got
    assert ("source-origin", "match", True) in got


def test_explanation_change_is_shown_without_widening(repo, capsys):
    (repo / "wf" / "workflow.yaml").write_text(
        BASE.replace("Draft a bill for each clean match.", "Draft bills."))
    rc, data = run_json(capsys, "--diff", "HEAD", "--fail-on-widen", str(repo))
    assert rc == 0 and changes(data) == [("explanation", "draft", False)]


def test_unparsable_manifest_at_rev_is_reported_and_gated(repo, capsys):
    (repo / "wf" / "workflow.yaml").write_text("workflow: [unclosed\n")
    git(repo, "commit", "-qam", "broken")
    write_workflow(repo / "wf", BASE)
    rc, data = run_json(capsys, "--diff", "HEAD", "--fail-on-widen", str(repo))
    (w,) = data["workflows"]
    assert w["status"] == "unreadable" and "at HEAD" in w["error"] and "SM001" in w["error"]
    # an unreadable base hides nothing: every step reaching something counts as new
    assert rc == 1 and ("step-added", "draft", True) in changes(data)


def test_unreadable_work_tree_fails_and_bad_rev_is_a_usage_error(repo, capsys):
    (repo / "wf" / "workflow.yaml").write_text("workflow: [unclosed\n")
    assert main(["reach", "--diff", "HEAD", str(repo)]) == 1
    out = capsys.readouterr().out
    assert "cannot compare" in out and "could not be read in the work tree" in out
    assert main(["reach", "--diff", "no-such-rev", str(repo)]) == 2
    assert "stepsmith reach --diff" in capsys.readouterr().err
    assert main(["reach", "--diff=--output=/tmp/x", str(repo)]) == 2  # not an option to git


def test_added_and_removed_workflows(repo, capsys):
    write_workflow(repo / "second", BASE.replace("invoice-matching", "second-flow"))
    rc, data = run_json(capsys, "--diff", "HEAD", str(repo))
    st = {w["workflow"]: w["status"] for w in data["workflows"]}
    assert st == {"invoice-matching": "unchanged", "second-flow": "added"}
    assert data["widens"] is True
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "second")
    git(repo, "rm", "-rq", "second")
    _rc, data = run_json(capsys, "--diff", "HEAD", str(repo))
    st = {w["workflow"]: w["status"] for w in data["workflows"]}
    assert st["second-flow"] == "removed" and data["widens"] is False


def test_markdown_escapes_hostile_text_and_text_hides_control_characters(repo, capsys):
    hostile = "Draft | <img src=x> `code` \x1b]52;c;aGk=\x07"
    (repo / "wf" / "workflow.yaml").write_text(
        BASE.replace("Draft a bill for each clean match.", json.dumps(hostile))
        .replace("    effects: [draft_bill]\n", "    effects: [draft_bill]\n"
                 "    network: public_egress\n"))
    assert main(["reach", "--diff", "HEAD", "--format", "markdown", str(repo)]) == 0
    md = capsys.readouterr().out
    assert "⚠️ widens" in md and "network: none → public egress" in md
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert all(line.count(" | ") == 2 for line in rows[2:])  # no cell split by a pipe
    assert main(["reach", "--diff", "HEAD", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out


def test_work_tree_is_never_touched(repo, capsys):
    (repo / "wf" / "workflow.yaml").write_text(BASE.replace("version: 3", "version: 4"))
    before = git(repo, "status", "--porcelain")
    main(["reach", "--diff", "HEAD", str(repo)])
    capsys.readouterr()
    assert git(repo, "status", "--porcelain") == before
    assert "version: 4" in (repo / "wf" / "workflow.yaml").read_text()


@pytest.mark.parametrize("edit", [
    ("draft_bill: {connection: xero, kind: create,", "draft_bill: {connection: xero, kind: delete,"),
    ("  xero: {description: Ledger}\n", "  xero: {description: Ledger}\n  bank: {description: Bank}\n"),
], ids=["kind", "connection"])
def test_an_existing_effect_doing_something_else_widens(repo, capsys, edit):
    """The step keeps its effect, but the effect now deletes instead of creating, or acts
    through another connection: what the step can do changed, so the gate must stop it."""
    text = BASE.replace(*edit)
    if edit[1].endswith("bank: {description: Bank}\n"):
        text = text.replace("draft_bill: {connection: xero,", "draft_bill: {connection: bank,")
    (repo / "wf" / "workflow.yaml").write_text(text)
    rc, data = run_json(capsys, "--diff", "HEAD", "--fail-on-widen", str(repo))
    (change,) = [c for w in data["workflows"] for c in w["changes"]]
    assert (change["kind"], change["step"], change["widens"]) == ("effect-origin", "draft", True)
    assert rc == 1 and data["widens"] is True
