"""`stepsmith reach` and `stepsmith schema`."""

import json
from pathlib import Path

from manifest_kit import BASE, write_workflow
from stepsmith.runner.cli import main
from stepsmith.runner.reach import REACH_SENTENCE
from stepsmith.runner.schema import schema_text

EXTRA = (
    "  - id: tally\n"
    "    explanation: Count the drafts.\n"
    "    code: steps/t.py:tally\n"
    "    inputs: {drafts: steps.draft.output}\n"
    "  - id: fetch_rates\n"
    "    explanation: Fetch public exchange rates.\n"
    "    code: steps/f.py:fetch\n"
    "    network: public_egress\n"
)


def test_reach_table_lists_every_step(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # reach fits COLUMNS (xdist workers set 80)
    write_workflow(tmp_path / "wf", BASE + EXTRA)
    assert main(["reach", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for step in ("match", "draft", "tally", "fetch_rates"):
        assert step in out
    tally_row = next(line for line in out.splitlines() if "tally" in line)
    assert tally_row.count("nothing") == 3
    assert "public egress" in out
    assert "draft_bill" in out and "create via" in out
    assert "invoices (connection" in out
    assert out.rstrip().endswith(REACH_SENTENCE)


def test_reach_json(tmp_path, capsys):
    m = write_workflow(tmp_path / "wf", BASE + EXTRA)
    assert main(["reach", "--format", "json", str(m)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sentence"] == REACH_SENTENCE
    (wf,) = data["workflows"]
    assert wf["workflow"] == "invoice-matching" and wf["version"] == 3
    rows = {r["step_id"]: r for r in wf["steps"]}
    assert list(rows) == ["match", "draft", "tally", "fetch_rates"]
    assert rows["tally"]["reaches_nothing"] is True
    assert rows["draft"]["connections"] == ["xero"] and rows["draft"]["effects"] == ["draft_bill"]
    assert rows["match"]["sources"] == ["invoices", "purchase_orders"]
    assert rows["fetch_rates"]["network"] == "public_egress"


def test_reach_on_invalid_manifest_and_missing_path(tmp_path, capsys):
    write_workflow(tmp_path / "wf", BASE.replace("version: 3", "version: x"))
    assert main(["reach", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "not a valid workflow" in err and "SM005" in err
    assert main(["reach", str(tmp_path / "nope")]) == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["reach", str(empty)]) == 2


def test_schema_prints_the_generated_schema(capsys):
    assert main(["schema"]) == 0
    out = capsys.readouterr().out
    assert out == schema_text()
    assert json.loads(out)["title"]


def test_schema_check_and_write(tmp_path, capsys):
    target = tmp_path / "s.json"
    assert main(["schema", "--write", str(target)]) == 0
    assert main(["schema", "--check", str(target)]) == 0
    target.write_text(target.read_text().replace("Immutable", "Mutable"))
    assert main(["schema", "--check", str(target)]) == 1
    assert "out of date" in capsys.readouterr().err
    assert main(["schema", "--check", str(tmp_path / "missing.json")]) == 2


def test_checked_in_schema_is_current(capsys):
    repo = Path(__file__).resolve().parents[2]
    assert main(["schema", "--check", str(repo / "schemas" / "workflow.schema.json")]) == 0
