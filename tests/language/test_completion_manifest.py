"""Manifest completion, cursor-marker style: each test asserts the whole edit (range and new
text) and the document after applying it, in block and flow style, also where the YAML does
not parse."""

from __future__ import annotations

import dataclasses

from completion_helpers import MANIFEST, apply, complete_at, edits, one
from cursor_kit import cursor
from stepsmith.runner.manifest import parse_manifest

STEP_TAIL = "    connections: [xero]\n    effects: [draft_bill]\n"


def test_sources_inv_completes_to_the_source_not_a_doubled_prefix(tmp_path):
    marked = MANIFEST.replace("invoices: steps.normalise.output", "invoices: sources.inv|")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    line = cursor(marked)[1]
    assert edits(items)[:2] == [("sources.invoices", (line, 24, line, 27), "invoices"),
                                ("sources.purchase_orders", (line, 24, line, 27),
                                 "purchase_orders")]
    assert all(i.filter_text == i.new_text for i in items)
    after = apply(text, one(items, "sources.invoices"))
    assert "      invoices: sources.invoices\n" in after.split("- id: match")[1]
    assert parse_manifest(after).problems == []


def test_step_outputs_exclude_the_step_itself_and_cycles(tmp_path):
    # in `normalise` (which `match` and, through it, `draft_bills` read): no step output at all
    marked = MANIFEST.replace("invoices: sources.invoices", "invoices: steps.|")
    _, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert [i.label for i in items] == []
    # in `draft_bills`: normalise and match, not itself
    marked = MANIFEST.replace("matches: steps.match.output", "matches: |")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert [i.label for i in items] == ["sources.invoices", "sources.purchase_orders",
                                        "steps.normalise.output", "steps.match.output"]
    item = one(items, "steps.normalise.output")
    line = cursor(marked)[1]
    assert (item.range.line, item.range.column, item.range.end_column) == (line, 15, 15)
    assert item.new_text == "steps.normalise.output"
    assert "matches: steps.normalise.output\n" in apply(text, item)


def test_partial_step_reference_inserts_the_rest(tmp_path):
    marked = MANIFEST.replace("matches: steps.match.output", "matches: steps.nor|")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    # the typed word is the client's to filter; what was typed before it is the server's
    assert [(i.label, i.new_text) for i in items] == [("steps.normalise.output",
                                                       "normalise.output"),
                                                      ("steps.match.output", "match.output")]
    assert {i.range.column for i in items} == {len("      matches: steps.")}
    assert "matches: steps.normalise.output\n" in apply(text, items[0])


def test_code_after_the_folder_gives_whole_code_values(tmp_path):
    marked = MANIFEST.replace("code: steps/match.py:match", "code: steps/|")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    line = cursor(marked)[1]
    # the step's own name first, then functions named like their file, then the helpers
    assert edits(items) == [
        ("steps/match.py:match", (line, 16, line, 16), "match.py:match"),
        ("steps/normalise.py:normalise", (line, 16, line, 16), "normalise.py:normalise"),
        ("steps/bills.py:draft_bills", (line, 16, line, 16), "bills.py:draft_bills"),
        ("steps/match.py:in_base_currency", (line, 16, line, 16), "match.py:in_base_currency"),
        # and each file, for picking the function next (`:` triggers completion again)
        ("steps/bills.py", (line, 16, line, 16), "bills.py:"),
        ("steps/match.py", (line, 16, line, 16), "match.py:"),
        ("steps/normalise.py", (line, 16, line, 16), "normalise.py:")]
    after = apply(text, one(items, "steps/match.py:match"))
    assert after == MANIFEST


def test_code_after_an_unquoted_colon_completes_though_the_yaml_is_broken(tmp_path):
    marked = MANIFEST.replace("code: steps/match.py:match", "code: steps/match.py:|")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert parse_manifest(text).root is None  # `: ` at the end: not YAML
    line = cursor(marked)[1]
    assert edits(items) == [("steps/match.py:match", (line, 25, line, 25), "match"),
                            ("steps/match.py:in_base_currency", (line, 25, line, 25),
                             "in_base_currency")]
    assert apply(text, items[1]).count("code: steps/match.py:in_base_currency\n") == 1


def test_code_inside_quotes_replaces_only_the_typed_word(tmp_path):
    marked = MANIFEST.replace("code: steps/match.py:match", 'code: "steps/match.py:in|"')
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    item = one(items, "steps/match.py:in_base_currency")
    line = cursor(marked)[1]
    assert (item.range.line, item.range.column, item.range.end_column) == (line, 26, 28)
    assert item.new_text == "in_base_currency"
    after = apply(text, item)
    assert 'code: "steps/match.py:in_base_currency"\n' in after
    assert parse_manifest(after).problems == []


def test_connection_in_a_flow_map(tmp_path):
    marked = MANIFEST.replace("invoices: {connection: xero,", "invoices: {connection: |,")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    line = cursor(marked)[1]
    assert edits(items) == [("xero", (line, 25, line, 25), "xero"),
                            ("ecb", (line, 25, line, 25), "ecb")]
    assert apply(text, items[0]) == MANIFEST


def test_enum_values_in_a_flow_map(tmp_path):
    marked = MANIFEST.replace("kind: create", "kind: |")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert [(i.label, i.new_text) for i in items] == [
        ("create", "create"), ("update", "update"), ("delete", "delete"), ("send", "send")]
    assert apply(text, items[0]) == MANIFEST
    marked = MANIFEST.replace("{connection: xero, description: Supplier invoices}",
                              "{connection: xero, kind: ch|}")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    item = one(items, "channel")
    assert item.new_text == "channel" and item.range.end_column - item.range.column == 2
    assert "invoices: {connection: xero, kind: channel}\n" in apply(text, item)


def test_keys_in_a_flow_map_skip_the_ones_written(tmp_path):
    marked = MANIFEST.replace("{connection: xero, description: Supplier invoices}",
                              "{connection: xero, |}")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert [(i.label, i.new_text) for i in items] == [
        ("kind", "kind: "), ("channel", "channel: "), ("query", "query: "),
        ("description", "description: ")]
    assert "invoices: {connection: xero, kind: }\n" in apply(text, items[0])


def test_connections_in_a_block_list_item(tmp_path):
    marked = MANIFEST.replace("    connections: [xero]\n", "    connections:\n      - |\n")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    line = cursor(marked)[1]
    assert edits(items) == [("xero", (line, 8, line, 8), "xero"), ("ecb", (line, 8, line, 8), "ecb")]
    after = apply(text, items[0])
    assert "    connections:\n      - xero\n" in after
    assert parse_manifest(after).problems == []


def test_flow_list_items_skip_the_listed_ones(tmp_path):
    marked = MANIFEST.replace("connections: [xero]", "connections: [xero, |]")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert [(i.label, i.new_text) for i in items] == [("ecb", "ecb")]
    assert "connections: [xero, ecb]" in apply(text, items[0])
    marked = MANIFEST.replace("effects: [draft_bill]", "effects: [d|]")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert [(i.label, i.new_text, i.range.end_column - i.range.column) for i in items] == [
        ("draft_bill", "draft_bill", 1)]
    assert apply(text, items[0]) == MANIFEST


def test_input_names_come_from_the_functions_signature(tmp_path):
    marked = MANIFEST.replace("      invoices: steps.normalise.output\n",
                              "      invoices: steps.normalise.output\n      |\n")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    line = cursor(marked)[1]
    assert edits(items) == [("purchase_orders", (line, 6, line, 6), "purchase_orders: "),
                            ("tolerance", (line, 6, line, 6), "tolerance: ")]
    assert "      invoices: steps.normalise.output\n      tolerance: \n" in apply(text, items[1])


def test_input_names_while_typing_leave_out_connections_and_effects(tmp_path):
    marked = MANIFEST.replace("      matches: steps.match.output\n",
                              "      matches: steps.match.output\n      co|\n")
    _, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert items == []  # draft_bills(matches, connections, effects): nothing left to wire


def test_step_keys_skip_the_written_ones(tmp_path):
    marked = MANIFEST.replace("    effects: [draft_bill]\n", "    effects: [draft_bill]\n    ne|\n")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert [i.label for i in items] == ["network"]
    line = cursor(marked)[1]
    assert edits(items) == [("network", (line, 4, line, 6), "network: ")]
    assert apply(text, items[0]).endswith("    effects: [draft_bill]\n    network: \n")


def test_network_values(tmp_path):
    marked = MANIFEST.replace("    effects: [draft_bill]\n",
                              "    effects: [draft_bill]\n    network: p|\n")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert [(i.label, i.new_text) for i in items] == [("none", "none"),
                                                      ("public_egress", "public_egress")]
    assert apply(text, items[1]).endswith("    network: public_egress\n")


def test_a_new_step_entry_snippet(tmp_path):
    marked = MANIFEST + "  - |\n"
    _, items = complete_at(tmp_path, "workflow.yaml", marked)
    snippet = items[0]
    line = marked.count("\n")
    assert (snippet.label, snippet.snippet) == ("new step", True)
    assert (snippet.range.line, snippet.range.column, snippet.range.end_column) == (line, 4, 4)
    assert snippet.new_text == ("id: ${1:new_step}\n    explanation: ${2:what this step does, "
                                "in plain language}\n    code: steps/${3:new_step}.py:${4:new_step}")
    assert snippet.filter_text.startswith("id: new_step\n")
    expanded = MANIFEST + "  - " + snippet.filter_text + "\n"
    doc = parse_manifest(expanded)
    assert doc.root.data["steps"][-1] == {"id": "new_step",
                                          "explanation": "what this step does, in plain language",
                                          "code": "steps/new_step.py:new_step"}
    assert [i.label for i in items[1:]] == ["id", "explanation", "code", "inputs", "network",
                                            "connections", "effects"]


def test_top_level_keys_and_trigger_keys(tmp_path):
    marked = "workflow: w\nversion: 1\n|"
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert [i.label for i in items] == ["python", "timezone", "trigger", "connections", "sources",
                                        "effects", "steps"]
    assert edits(items)[0] == ("python", (3, 0, 3, 0), "python: ")
    marked = "workflow: w\ntrigger: {sch|}\n"
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert edits(items) == [("schedule", (2, 10, 2, 13), "schedule: "),
                            ("event", (2, 10, 2, 13), "event: "),
                            ("manual", (2, 10, 2, 13), "manual: ")]
    assert apply(text, items[0]) == "workflow: w\ntrigger: {schedule: }\n"


def test_effect_connection_in_block_style(tmp_path):
    marked = MANIFEST.replace("  draft_bill: {connection: xero, kind: create, key: invoice_id}\n",
                              "  draft_bill:\n    connection: e|\n")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert [(i.label, i.new_text) for i in items] == [("xero", "xero"), ("ecb", "ecb")]
    assert "    connection: ecb\n" in apply(text, items[1])


def test_nothing_in_comments_or_block_scalars(tmp_path):
    for marked in (MANIFEST.replace("version: 3", "version: 3  # sources.|"),
                   MANIFEST.replace("explanation: Clean up each invoice.",
                                    "explanation: >\n      Clean up sources.|")):
        _, items = complete_at(tmp_path, "workflow.yaml", marked)
        assert items == [], marked


def test_columns_are_code_points_after_an_emoji(tmp_path):
    # the emoji is one code point (two UTF-16 units): convert.py makes LSP columns of these
    marked = MANIFEST.replace("{connection: xero, description: Supplier invoices}",
                              "{description: \"🧾 in\", connection: |}")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    col = len("  invoices: {description: \"🧾 in\", connection: ")
    assert [(i.new_text, i.range.column, i.range.end_column) for i in items] == [
        ("xero", col, col), ("ecb", col, col)]
    assert '{description: "🧾 in", connection: xero}' in apply(text, items[0])


def test_a_new_step_on_a_blank_line_brings_its_dash(tmp_path):
    for marked in (MANIFEST + "  |\n", "workflow: w\nsteps:\n  |\n"):
        text, items = complete_at(tmp_path, "workflow.yaml", marked)
        line = cursor(marked)[1]
        assert edits(items) == [("new step", (line, 2, line, 2),
                                 ("- id: ${1:new_step}\n    explanation: ${2:what this step does, "
                                  "in plain language}\n    code: steps/${3:new_step}.py:${4:new_step}"))]
        # as a client expands it with the placeholders' defaults: a valid step entry
        expanded = apply(text, dataclasses.replace(items[0], new_text=items[0].filter_text))
        assert parse_manifest(expanded).root.data["steps"][-1] == {
            "id": "new_step", "explanation": "what this step does, in plain language",
            "code": "steps/new_step.py:new_step"}


def test_a_new_list_item_on_a_blank_line(tmp_path):
    marked = MANIFEST.replace("    connections: [xero]\n", "    connections:\n      - xero\n      |\n")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    line = cursor(marked)[1]
    assert edits(items) == [("ecb", (line, 6, line, 6), "- ecb")]
    assert "      - xero\n      - ecb\n" in apply(text, items[0])


def test_code_targets_of_a_huge_folder_are_bounded(tmp_path):
    from stepsmith.runner.language import completion_manifest as cm

    (tmp_path / "many").mkdir()
    for i in range(cm.MAX_LISTED_FILES + 20):
        (tmp_path / "many" / f"f{i:04d}.py").write_text(f"def f{i}():\n    return 1\n")
    (tmp_path / "steps").mkdir()
    (tmp_path / "steps" / "link.py").symlink_to(tmp_path / "many" / "f0000.py")
    marked = MANIFEST.replace("code: steps/match.py:match", "code: |")
    _, items = complete_at(tmp_path, "workflow.yaml", marked)
    files = {i.label.split(":")[0] for i in items if i.kind == "file"}
    assert len(files) <= cm.MAX_LISTED_FILES
    assert "steps/link.py" not in files  # a symlink is never offered
    # what is typed before the word narrows the files read: only steps/ here
    marked = MANIFEST.replace("code: steps/match.py:match", "code: steps/|")
    _, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert {i.label.split(":")[0] for i in items} == {"steps/bills.py", "steps/match.py",
                                                      "steps/normalise.py"}


def test_a_list_value_in_block_style_gets_a_flow_list(tmp_path):
    marked = MANIFEST.replace("    connections: [xero]\n", "    connections: |\n")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    line = cursor(marked)[1]
    assert edits(items) == [("xero", (line, 17, line, 17), "[xero]"),
                            ("ecb", (line, 17, line, 17), "[ecb]")]
    after = apply(text, items[1])
    assert "    connections: [ecb]\n" in after
    assert parse_manifest(after).problems == []


def test_flow_style_steps_and_inputs(tmp_path):
    flow = MANIFEST.replace(
        "  - id: match\n    explanation: Pair invoices with purchase orders.\n"
        "    code: steps/match.py:match\n    inputs:\n      invoices: steps.normalise.output\n",
        "  - {id: match, explanation: Pair them., code: steps/match.py:match, inputs: {|}}\n")
    text, items = complete_at(tmp_path, "workflow.yaml", flow)
    assert [(i.label, i.new_text) for i in items] == [
        ("invoices", "invoices: "), ("purchase_orders", "purchase_orders: "),
        ("tolerance", "tolerance: ")]
    after = apply(text, items[0]).replace("invoices: }", "invoices: sources.invoices}")
    assert parse_manifest(after).workflow.steps[1].inputs == {"invoices": "sources.invoices"}
    text, items = complete_at(tmp_path, "workflow.yaml", flow.replace("inputs: {|}",
                                                                      "inputs: {invoices: s|}"))
    assert [(i.label, i.new_text) for i in items][:3] == [
        ("sources.invoices", "sources.invoices"),
        ("sources.purchase_orders", "sources.purchase_orders"),
        ("steps.normalise.output", "steps.normalise.output")]
    assert "steps.match.output" not in [i.label for i in items]


def test_trigger_event_connection(tmp_path):
    marked = MANIFEST.replace('  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}',
                              "  event: {name: ledger.closed, connection: |}")
    text, items = complete_at(tmp_path, "workflow.yaml", marked)
    assert [(i.label, i.new_text) for i in items] == [("xero", "xero"), ("ecb", "ecb")]
    assert "  event: {name: ledger.closed, connection: xero}\n" in apply(text, items[0])
