"""Sources of three kinds — `connection` (default), `channel`, `graph` — with the
fields each needs, in the model, the JSON Schema, reach, hover and completion."""

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from stepsmith.runner.cli import main
from stepsmith.runner.language.manifest_services import (
    describe_key,
    manifest_hover,
)
from stepsmith.runner.manifest import parse_manifest
from stepsmith.runner.reach import reach_rows


def _labels(tmp_path, text: str, line: int, column: int) -> set[str]:
    """Labels the completion service offers at (line, column) of `text` as an open manifest."""
    from stepsmith.runner.language.completion import complete
    from stepsmith.runner.lines import split_lines
    from stepsmith.runner.workspace.index import WorkspaceIndex, norm
    from stepsmith.runner.workspace.snapshot import Buffer, WorkspaceSnapshot

    path = norm(tmp_path / "workflow.yaml")
    snap = WorkspaceSnapshot.of(WorkspaceIndex().with_manifests([path]),
                                {path: Buffer(text, 1, tuple(split_lines(text)))})
    return {c.label for c in complete(snap, path, line, column)}

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "schemas" /
                     "workflow.schema.json").read_text())

MANIFEST = """workflow: kinds
version: 1
python: "3.11"
trigger: {manual: {}}
connections:
  xero: {description: Ledger}
sources:
  invoices: {connection: xero}
  alerts: {kind: channel, channel: billing_alerts, description: Alerts posted today}
  owners: {kind: graph, query: account_owners}
steps:
  - id: read
    explanation: Read all three.
    code: steps/read.py:read
    inputs:
      a: sources.invoices
      b: sources.alerts
      c: sources.owners
"""


def problems(text):
    return [(p.code, p.message) for p in parse_manifest(text, "workflow.yaml").problems]


def test_the_three_kinds_are_valid_in_model_and_schema():
    doc = parse_manifest(MANIFEST, "workflow.yaml")
    assert doc.problems == [] and doc.workflow is not None
    kinds = {n: s.kind for n, s in doc.workflow.sources.items()}
    assert kinds == {"invoices": "connection", "alerts": "channel", "owners": "graph"}
    jsonschema.validate(yaml.safe_load(MANIFEST), SCHEMA)


@pytest.mark.parametrize("source,fragment", [
    ("{kind: channel}", "a source of kind channel needs `channel`"),
    ("{kind: graph, channel: x}", "a source of kind graph needs `query`"),
    ("{kind: graph, query: q, connection: xero}", "`connection` belongs to a source of kind "
     "connection, not graph"),
    ("{description: nothing else}", "a source of kind connection needs `connection`"),
    ("{connection: xero, channel: c}", "`channel` belongs to a source of kind channel"),
    ("{kind: stream, connection: xero}", "kind"),
])
def test_each_kind_needs_its_field_model_and_schema_agree(source, fragment):
    text = MANIFEST.replace("{kind: channel, channel: billing_alerts, description: Alerts "
                            "posted today}", source)
    got = problems(text)
    assert got and any(fragment in m for _, m in got), got
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(yaml.safe_load(text), SCHEMA)


def test_reach_shows_what_each_step_reads_by_kind(tmp_path, capsys, monkeypatch):
    doc = parse_manifest(MANIFEST, "workflow.yaml")
    (row,) = reach_rows(doc.workflow)
    assert dict(row.source_origins) == {"invoices": "connection xero",
                                        "alerts": "channel billing_alerts",
                                        "owners": "graph query account_owners"}
    (tmp_path / "workflow.yaml").write_text(MANIFEST)
    (tmp_path / "steps").mkdir()
    (tmp_path / "steps" / "read.py").write_text("def read(a, b, c):\n    return 1\n")
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["reach", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "invoices (connection xero)" in out and "alerts (channel billing_alerts)" in out
    assert "owners (graph query account_owners)" in out
    assert main(["reach", str(tmp_path), "--format", "json"]) == 0
    step = json.loads(capsys.readouterr().out)["workflows"][0]["steps"][0]
    assert step["source_origins"]["owners"] == "graph query account_owners"


def test_hover_and_completion_know_the_kinds(tmp_path):
    doc = parse_manifest(MANIFEST, "workflow.yaml")
    i = MANIFEST.index("sources.alerts") + 3
    line = MANIFEST.count("\n", 0, i) + 1
    md, _ = manifest_hover(doc, line, i - (MANIFEST.rfind("\n", 0, i) + 1))
    assert "**channel**: `billing_alerts`" in md and "Alerts posted today" in md
    i = MANIFEST.index("sources.owners") + 3
    md, _ = manifest_hover(doc, MANIFEST.count("\n", 0, i) + 1,
                           i - (MANIFEST.rfind("\n", 0, i) + 1))
    assert "**graph query**: `account_owners`" in md
    assert "channel" in describe_key(("sources", "alerts", "kind"))
    text = MANIFEST.replace("  owners: {kind: graph, query: account_owners}\n",
                            "  owners:\n    kind: \n")
    doc = parse_manifest(text, "workflow.yaml")
    k = text.split("\n").index("    kind: ")
    got = _labels(tmp_path, text, k + 1, len("    kind: "))
    assert {"connection", "channel", "graph"} <= got
