"""ManifestDoc.locate / path_at (for the language server) and reach rows."""

from manifest_kit import BASE, pos
from stepsmith.runner.language.cards import reach_card
from stepsmith.runner.manifest import parse_manifest
from stepsmith.runner.reach import REACH_SENTENCE, reach_rows


def test_locate_keys_and_values():
    doc = parse_manifest(BASE)
    sp = doc.locate(("steps", 1, "id"), "value")
    assert (sp.line, sp.column, sp.end_column) == (21, 8, 13)
    sp = doc.locate(("steps", 1, "id"), "key")
    assert (sp.line, sp.column, sp.end_column) == (21, 4, 6)
    sp = doc.locate(("steps", 0, "inputs", "tolerance"), "value")
    assert (sp.line, sp.column) == pos(BASE, '"0.50"')
    assert sp.end_column - sp.column == len('"0.50"')
    sp = doc.locate(("effects", "draft_bill", "kind"))
    assert (sp.line, sp.column) == pos(BASE, "create")
    sp = doc.locate(("steps", 1, "connections", 0))
    assert (sp.line, sp.column) == pos(BASE, "xero]")
    sp = doc.locate(("steps", 0))
    assert (sp.line, sp.column) == (14, 4)
    assert (sp.end_line, sp.end_column) == (20, 23)
    assert doc.locate(("steps", 5, "id")) is None
    assert doc.locate(("nope",)) is None
    assert doc.locate(("steps", 0, "id", "deeper")) is None
    assert doc.step_index("draft") == 1 and doc.step_index("nope") is None


def test_path_at_positions():
    doc = parse_manifest(BASE)
    line, col = pos(BASE, "sources.purchase_orders")
    assert doc.path_at(line, col + 3) == (("steps", 0, "inputs", "purchase_orders"), "value")
    line, col = pos(BASE, "explanation: Draft")
    assert doc.path_at(line, col + 1) == (("steps", 1, "explanation"), "key")
    line, col = pos(BASE, "draft_bill]")
    assert doc.path_at(line, col) == (("steps", 1, "effects", 0), "value")
    assert doc.path_at(1, 0) == (("workflow",), "key")


def test_locate_works_on_a_broken_manifest():
    doc = parse_manifest(BASE.replace("version: 3", "version: x"))
    assert doc.workflow is None
    assert doc.locate(("steps", 1, "code")).line == 23


def test_reach_rows_list_every_step():
    text = BASE + (
        "  - id: tally\n"
        "    explanation: Count the drafts.\n"
        "    code: steps/t.py:tally\n"
        "    inputs: {drafts: steps.draft.output, label: sources are not read here}\n"
        "  - id: fetch\n"
        "    explanation: Fetch a public page.\n"
        "    code: steps/f.py:fetch\n"
        "    network: public_egress\n"
    )
    wf = parse_manifest(text).workflow
    rows = reach_rows(wf)
    assert [r.step_id for r in rows] == ["match", "draft", "tally", "fetch"]
    match, draft, tally, fetch = rows
    assert match.sources == ("invoices", "purchase_orders") and not match.reaches_nothing
    assert match.network == "none" and match.connections == () and match.effects == ()
    assert draft.connections == ("xero",) and draft.effects == ("draft_bill",) and draft.sources == ()
    assert draft.function == "draft" and draft.code == "steps/bills.py:draft"
    assert tally.reaches_nothing and tally.sources == () and tally.effects == ()
    assert fetch.network == "public_egress" and fetch.network_label == "public egress"
    assert not fetch.reaches_nothing
    assert tally.to_json()["connections"] == []
    assert match.source_origins == (("invoices", "connection xero"),
                                    ("purchase_orders", "connection xero"))
    md = reach_card(draft)
    assert "`xero`" in md and "(create via xero)" in md and md.endswith(f"*{REACH_SENTENCE}*")
    assert REACH_SENTENCE == "This is what each step is permitted to reach, not a review of what its code does."
