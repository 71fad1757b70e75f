"""Effects on channels (`post_summary: {channel: finance-requests, kind: send, key: day}`, the
SPEC's example): exactly one of `connection` / `channel`, in the model and the JSON Schema; a
channel effect shown as such in reach (CLI text and JSON, hovers), in completion; its intents
recorded and compared like any effect's (in the real sandbox)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from stepsmith.runner.cli import main
from stepsmith.runner.language.manifest_services import describe_key, manifest_hover
from stepsmith.runner.manifest import parse_manifest
from stepsmith.runner.reach import reach_rows

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "schemas" /
                     "workflow.schema.json").read_text())

MANIFEST = """workflow: invoice-matching
version: 1
python: "3.11"
trigger: {manual: {}}
connections:
  xero: {description: Ledger}
sources:
  requests: {kind: channel, channel: finance-requests}
effects:
  draft_bill: {connection: xero, kind: create, key: invoice_id}
  post_summary: {channel: finance-requests, kind: send, key: day}
steps:
  - id: summary
    explanation: Post the day's summary to the finance channel.
    code: steps/summary.py:summary
    inputs:
      matches: sources.requests
    effects: [post_summary]
"""
SUMMARY_PY = ('def summary(matches, effects):\n'
              '    effects.emit("post_summary", {"day": "2026-12-01", "text": str(len(matches))})\n'
              '    return len(matches)\n')


def problems(text: str) -> list[tuple[str, str]]:
    return [(p.code, p.message) for p in parse_manifest(text, "workflow.yaml").problems]


def test_a_channel_effect_is_valid_in_model_and_schema():
    doc = parse_manifest(MANIFEST, "workflow.yaml")
    assert doc.problems == [] and doc.workflow is not None
    eff = doc.workflow.effects["post_summary"]
    assert (eff.channel, eff.connection, eff.target, eff.reach) == (
        "finance-requests", None, "channel finance-requests", "send to channel finance-requests")
    assert doc.workflow.effects["draft_bill"].reach == "create via xero"
    jsonschema.validate(yaml.safe_load(MANIFEST), SCHEMA)


@pytest.mark.parametrize("effect, code, fragment", [
    ("{channel: finance-requests, connection: xero, kind: send, key: day}", "SM005",
     "an effect targets a connection or a channel, not both"),
    ("{kind: send, key: day}", "SM004", "an effect needs `connection` or `channel`"),
    ("{connection: null, channel: null, kind: send, key: day}", "SM004", "needs `connection`"),
    ("{channel: ' padded', kind: send, key: day}", "SM005", "channel"),
    ("{channel: 42, kind: send, key: day}", "SM005", "channel"),
])
def test_exactly_one_target_model_and_schema_agree(effect, code, fragment):
    text = MANIFEST.replace("{channel: finance-requests, kind: send, key: day}", effect)
    got = problems(text)
    assert any(c == code and fragment in m for c, m in got), got
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(yaml.safe_load(text), SCHEMA)


def test_a_null_other_target_is_absent_in_model_and_schema():
    text = MANIFEST.replace("{channel: finance-requests, kind: send, key: day}",
                            "{channel: finance-requests, connection: null, kind: send, key: day}")
    assert problems(text) == []
    jsonschema.validate(yaml.safe_load(text), SCHEMA)


def test_reach_shows_a_channel_effect_as_such(tmp_path, capsys, monkeypatch):
    (row,) = reach_rows(parse_manifest(MANIFEST, "workflow.yaml").workflow)
    assert dict(row.effect_targets) == {"post_summary": "send to channel finance-requests"}
    assert row.connections == () and not row.reaches_nothing
    (tmp_path / "workflow.yaml").write_text(MANIFEST)
    (tmp_path / "steps").mkdir()
    (tmp_path / "steps" / "summary.py").write_text(SUMMARY_PY)
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["reach", str(tmp_path)]) == 0
    assert "post_summary (send to channel finance-requests)" in capsys.readouterr().out
    assert main(["reach", str(tmp_path), "--format", "json"]) == 0
    step = json.loads(capsys.readouterr().out)["workflows"][0]["steps"][0]
    assert step["effect_targets"] == {"post_summary": "send to channel finance-requests"}
    assert step["connections"] == []


def _at(text: str, needle: str, offset: int = 1) -> tuple[int, int]:
    i = text.index(needle) + offset
    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1)


def test_hovers_say_where_the_effect_goes(tmp_path):
    doc = parse_manifest(MANIFEST, "workflow.yaml")
    md, _ = manifest_hover(doc, *_at(MANIFEST, "effects: [post_summary]", 12))
    assert "`post_summary` (send to channel finance-requests)" in md
    assert "channel" in describe_key(("effects", "post_summary", "channel"))
    # the step function's hover: the same reach card
    from stepsmith.runner.language.hover import hover
    from stepsmith.runner.workspace.index import WorkspaceIndex, norm
    from stepsmith.runner.workspace.snapshot import WorkspaceSnapshot

    (tmp_path / "workflow.yaml").write_text(MANIFEST)
    (tmp_path / "steps").mkdir()
    (tmp_path / "steps" / "summary.py").write_text(SUMMARY_PY)
    from stepsmith.runner.app.fix import disk_snapshot

    snap = disk_snapshot([norm(tmp_path / "workflow.yaml")])
    assert isinstance(snap, WorkspaceSnapshot) and isinstance(snap.index, WorkspaceIndex)
    card = hover(snap, norm(tmp_path / "steps" / "summary.py"), 1, 5)
    assert card is not None and "send to channel finance-requests" in card.markdown


def _labels(tmp_path, text: str, line: int, column: int) -> set[str]:
    from stepsmith.runner.language.completion import complete
    from stepsmith.runner.lines import split_lines
    from stepsmith.runner.workspace.index import WorkspaceIndex, norm
    from stepsmith.runner.workspace.snapshot import Buffer, WorkspaceSnapshot

    path = norm(tmp_path / "workflow.yaml")
    snap = WorkspaceSnapshot.of(WorkspaceIndex().with_manifests([path]),
                                {path: Buffer(text, 1, tuple(split_lines(text)))})
    return {c.label for c in complete(snap, path, line, column)}


def test_completion_knows_the_two_targets(tmp_path):
    text = MANIFEST.replace("  post_summary: {channel: finance-requests, kind: send, key: day}\n",
                            "  post_summary:\n    channel: finance-requests\n    \n")
    line = text.split("\n").index("    ") + 1
    keys = _labels(tmp_path, text, line, 4)
    assert {"kind", "key", "description"} <= keys and not {"connection", "channel"} & keys
    text = MANIFEST.replace("  post_summary: {channel: finance-requests, kind: send, key: day}\n",
                            "  post_summary:\n    \n")
    line = text.split("\n").index("    ") + 1
    assert {"connection", "channel", "kind", "key"} <= _labels(tmp_path, text, line, 4)
    text = MANIFEST.replace("{channel: finance-requests, kind: send, key: day}",
                            "\n    channel: \n    kind: send\n    key: day")
    line = text.split("\n").index("    channel: ") + 1
    assert "finance-requests" in _labels(tmp_path, text, line, len("    channel: "))


def test_intents_on_a_channel_are_recorded_and_compared(tmp_path, capsys, sandbox):
    (tmp_path / "workflow.yaml").write_text(MANIFEST)
    (tmp_path / "steps").mkdir()
    (tmp_path / "steps" / "summary.py").write_text(SUMMARY_PY)
    fixtures = tmp_path / "fixtures" / "summary"
    fixtures.mkdir(parents=True)
    intent = {"effect": "post_summary", "key": "2026-12-01",
              "payload": {"day": "2026-12-01", "text": "2"}}
    case = {"inputs": {"matches": [1, 2]}, "evaluation_time": "2026-12-01T07:00:00+00:00",
            "expected": {"output": 2, "effects": [intent]}}
    (fixtures / "day.json").write_text(json.dumps(case))
    assert main(["check", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["test", str(tmp_path)]) == 0
    assert "1 passed" in capsys.readouterr().out
    case["expected"]["effects"][0]["payload"]["text"] = "3"
    (fixtures / "day.json").write_text(json.dumps(case))
    assert main(["test", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "effects" in out and "text" in out
