"""The pure language-service functions the server adapts (no LSP involved)."""

from __future__ import annotations

from stepsmith.runner.language.cards import pinned_time_card, reach_card, rule_card
from stepsmith.runner.language.manifest import (
    describe_key,
    manifest_completions,
    manifest_hover,
    manifest_symbols,
)
from stepsmith.runner.language.steps import (
    clock_call_at,
    manifest_quick_fixes,
    quick_fixes,
    step_completions,
    step_symbols,
)
from stepsmith.runner.manifest import parse_manifest
from stepsmith.runner.reach import REACH_SENTENCE, reach_rows
from stepsmith.runner.validator import validate

MANIFEST = """workflow: demo
version: 1
python: "3.11"
trigger: {manual: {}}
connections:
  ledger: {description: Ledger}
sources:
  invoices: {connection: ledger}
effects:
  bill: {connection: ledger, kind: create, key: invoice_id}
steps:
  - id: read
    explanation: Read the invoices.
    code: steps/read.py:read
    inputs:
      invoices: sources.invoices
  - id: calm
    explanation: Does nothing risky.
    code: steps/read.py:calm
    inputs:
      rows: steps.read.output
"""


def test_reach_card_lists_everything_and_says_what_it_is():
    doc = parse_manifest(MANIFEST, "workflow.yaml")
    rows = {r.step_id: r for r in reach_rows(doc.workflow)}
    card = reach_card(rows["read"])
    assert "`invoices`" in card and "network" in card and REACH_SENTENCE in card
    assert "Reaches nothing" in reach_card(rows["calm"])


def test_manifest_hover_symbols_and_completion():
    doc = parse_manifest(MANIFEST, "workflow.yaml")
    text, span = manifest_hover(doc, 12, 8)  # on `read` (the id)
    assert "Step `read`" in text and REACH_SENTENCE in text
    text, span = manifest_hover(doc, 3, 1)  # `python` key
    assert "Python version" in text and span.line == 3
    syms = {s.name: s for s in manifest_symbols(doc)}
    assert [c.name for c in syms["steps"].children] == ["read", "calm"]
    assert describe_key(("steps", 0, "network")).startswith("**`network`**")
    lines = MANIFEST.split("\n")
    k = lines.index("      rows: steps.read.output")
    got = {c.label for c in manifest_completions(doc, MANIFEST, k + 1, len("      rows: "))}
    assert {"sources.invoices", "steps.read.output", "steps.calm.output"} <= got


def test_step_services():
    text = "import os\nimport datetime\n\n\ndef f(x):\n    return datetime.date.today()\n"
    assert [s.name for s in step_symbols(text) if s.kind == "function"] == ["f"]
    assert clock_call_at(text, 6, 25) == "date.today()"
    assert "evaluation time" in pinned_time_card("date.today()")
    assert {c.label for c in step_completions("from st\n", 1, 7)} == {"statistics"}
    (problem,) = [p for p in validate(text) if p.code == "SS101"]
    (fix,) = quick_fixes(text, problem)
    assert fix.edits[0].span.line == 1 and fix.edits[0].new_text == ""
    assert "SS101" in rule_card("SS101") and rule_card("NOPE") is None


def test_remove_one_name_from_a_multi_import_and_pass_in_a_body():
    text = "import json, os\n\n\ndef f():\n    import os\n"
    probs = [p for p in validate(text) if p.code == "SS101"]
    fixes = [quick_fixes(text, p)[0] for p in probs]
    assert fixes[0].title == "Remove `os` from the import"
    e = fixes[0].edits[0]
    assert (e.span.line, e.span.column, e.span.end_column) == (1, 11, 15)
    assert fixes[1].edits[0].new_text == "pass"  # the import is the function's only statement


def test_explanation_placeholder_fix():
    text = MANIFEST.replace("    explanation: Read the invoices.\n", "")
    doc = parse_manifest(text, "workflow.yaml")
    (problem,) = [p for p in doc.problems if "explanation" in p.message]
    (fix,) = manifest_quick_fixes(doc, problem)
    assert fix.edits[0].new_text.startswith("    explanation: TODO")
