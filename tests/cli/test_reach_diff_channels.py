"""`stepsmith reach --diff` with effects on channels: a new channel effect and a changed target
(another channel, or a connection turned into a channel) widen, against real git."""

from __future__ import annotations

import json

from gitkit import committed_workflow
from manifest_kit import BASE
from stepsmith.runner.cli import main

WITH_CHANNEL = BASE.replace(
    "  draft_bill: {connection: xero, kind: create, key: invoice_id}\n",
    "  draft_bill: {connection: xero, kind: create, key: invoice_id}\n"
    "  post_summary: {channel: finance-requests, kind: send, key: day}\n")


def diff(capsys, repo) -> list[tuple[str, str, str | None, str | None, bool]]:
    assert main(["reach", "--diff", "HEAD", "--format", "json", str(repo)]) == 0
    data = json.loads(capsys.readouterr().out)
    return [(c["kind"], c["step"], c["before"], c["after"], c["widens"])
            for w in data["workflows"] for c in w["changes"]]


def test_a_step_given_a_channel_effect_widens(tmp_path, capsys):
    repo = committed_workflow(tmp_path, WITH_CHANNEL)
    (repo / "wf" / "workflow.yaml").write_text(
        WITH_CHANNEL.replace("    effects: [draft_bill]\n", "    effects: [draft_bill, post_summary]\n"))
    assert diff(capsys, repo) == [("effect-added", "draft", None,
                                   "post_summary (send to channel finance-requests)", True)]
    assert main(["reach", "--diff", "HEAD", str(repo)]) == 0
    assert "effect added: post_summary (send to channel finance-requests)" in capsys.readouterr().out


def test_a_changed_target_widens(tmp_path, capsys):
    used = WITH_CHANNEL.replace("    effects: [draft_bill]\n", "    effects: [draft_bill, post_summary]\n")
    repo = committed_workflow(tmp_path, used)
    (repo / "wf" / "workflow.yaml").write_text(used.replace("channel: finance-requests",
                                                            "channel: everyone"))
    assert diff(capsys, repo) == [("effect-origin", "draft",
                                   "post_summary (send to channel finance-requests)",
                                   "post_summary (send to channel everyone)", True)]
    (repo / "wf" / "workflow.yaml").write_text(used.replace(
        "draft_bill: {connection: xero, kind: create, key: invoice_id}",
        "draft_bill: {channel: finance-requests, kind: create, key: invoice_id}"))
    assert diff(capsys, repo) == [("effect-origin", "draft", "draft_bill (create via xero)",
                                   "draft_bill (create to channel finance-requests)", True)]
