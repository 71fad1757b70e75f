"""The pure language-service functions the server adapts (no LSP involved)."""

from __future__ import annotations

from stepsmith.runner.language.actions import manifest_fixes, step_fixes
from stepsmith.runner.language.cards import pinned_time_card, reach_card, rule_card
from stepsmith.runner.language.manifest_services import (
    describe_key,
    manifest_hover,
    manifest_symbols,
)
from stepsmith.runner.language.steps import (
    clock_call_at,
    step_symbols,
)
from stepsmith.runner.manifest import parse_manifest
from stepsmith.runner.reach import REACH_SENTENCE, reach_rows
from stepsmith.runner.validator import validate


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


def test_manifest_hover_symbols_and_completion(tmp_path):
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
    got = _labels(tmp_path, MANIFEST, k + 1, len("      rows: "))
    assert {"sources.invoices", "steps.read.output"} <= got
    assert "steps.calm.output" not in got  # the step itself (a cycle) is never offered


def test_step_services():
    text = "import os\nimport datetime\n\n\ndef f(x):\n    return datetime.date.today()\n"
    assert [s.name for s in step_symbols(text) if s.kind == "function"] == ["f"]
    assert clock_call_at(text, 6, 25) == "date.today()"
    assert "evaluation time" in pinned_time_card("date.today()")
    (problem,) = [p for p in validate(text) if p.code == "SS101"]
    (fix,) = step_fixes(problem)
    assert fix.edits[0].span.line == 1 and fix.edits[0].new_text == ""
    assert "SS101" in rule_card("SS101") and rule_card("NOPE") is None


def test_remove_one_name_from_a_multi_import_and_pass_in_a_body():
    text = "import json, os\n\n\ndef f():\n    import os\n"
    probs = [p for p in validate(text) if p.code == "SS101"]
    fixes = [step_fixes(p)[0] for p in probs]
    assert fixes[0].title == "Remove `os` from the import"
    e = fixes[0].edits[0]
    assert (e.span.line, e.span.column, e.span.end_column) == (1, 11, 15)
    assert fixes[1].edits[0].new_text == "pass"  # the import is the function's only statement


def test_explanation_placeholder_fix():
    text = MANIFEST.replace("    explanation: Read the invoices.\n", "")
    doc = parse_manifest(text, "workflow.yaml")
    (problem,) = [p for p in doc.problems if "explanation" in p.message]
    (fix,) = manifest_fixes(doc, problem)
    assert fix.edits[0].new_text.startswith("    explanation: \"TODO")
    # applied, the manifest is valid YAML and the placeholder is the explanation (unquoted,
    # `explanation: TODO: say...` was a YAML error: SM001)
    from stepsmith.runner.fixes import apply_edits

    fixed = parse_manifest(apply_edits(text, fix.edits), "workflow.yaml")
    assert [p.code for p in fixed.problems] == []
    assert fixed.workflow.steps[0].explanation.startswith("TODO: say")


INPUTS_MANIFEST = """workflow: inputs
version: 1
python: "3.11"
trigger: {manual: {}}
connections:
  ledger: {description: Accounts payable ledger}
sources:
  invoices: {connection: ledger, description: Invoices received yesterday}
steps:
  - id: read
    explanation: Read the invoices.
    code: steps/read.py:read
    inputs:
      invoices: sources.invoices
      base: GBP
      rows: [1, {a: 2}]
      limit: 3
      strict: true
      ratio: 1.5
      nothing: null
  - id: calm
    explanation: Sum what read found.
    code: steps/calm.py:calm
    inputs:
      found: steps.read.output
"""


def _pos(text: str, needle: str) -> tuple[int, int]:
    i = text.index(needle)
    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1)


def _hover_on(doc, text: str, needle: str, offset: int = 0):
    i = text.index(needle) + offset
    line = text.count("\n", 0, i) + 1
    return manifest_hover(doc, line, i - (text.rfind("\n", 0, i) + 1))


def test_hover_on_a_source_input_shows_the_source():
    doc = parse_manifest(INPUTS_MANIFEST, "workflow.yaml")
    md, span = _hover_on(doc, INPUTS_MANIFEST, "sources.invoices", 3)
    assert "source **`invoices`**" in md
    assert "Invoices received yesterday" in md
    assert "**connection**: `ledger` — Accounts payable ledger" in md
    assert "parameter `invoices` of `steps/read.py:read`" in md
    line = INPUTS_MANIFEST.split("\n").index("      invoices: sources.invoices") + 1
    assert (span.line, span.column, span.end_column) == (line, 16, 32)  # the whole value


def test_hover_on_a_step_output_input_shows_that_step():
    doc = parse_manifest(INPUTS_MANIFEST, "workflow.yaml")
    md, _ = _hover_on(doc, INPUTS_MANIFEST, "steps.read.output", 7)
    assert "the output of step **`read`**" in md
    assert "> Read the invoices." in md
    assert "**code**: `steps/read.py:read`" in md
    assert "parameter `found` of `steps/calm.py:calm`" in md
    # the editor's glue can turn code into links
    md, _ = manifest_hover(doc, *_pos(INPUTS_MANIFEST, "steps.read.output"),
                           code_link=lambda code: f"file:///ws/{code.replace(':', '#')}")
    assert "[`steps/read.py:read`](file:///ws/steps/read.py#read)" in md


def test_hover_on_a_literal_input_says_verbatim_with_its_json_type():
    doc = parse_manifest(INPUTS_MANIFEST, "workflow.yaml")
    cases = {"base: GBP": ("string", '"GBP"'), "rows: [1": ("array", '[1, {"a": 2}]'),
             "limit: 3": ("integer", "3"), "strict: true": ("boolean", "true"),
             "ratio: 1.5": ("number", "1.5"), "nothing: null": ("null", "null")}
    for needle, (kind, shown) in cases.items():
        param = needle.split(":")[0]
        md, span = _hover_on(doc, INPUTS_MANIFEST, needle, len(param) + 2)
        assert "literal input passed verbatim" in md, needle
        assert f"**JSON type**: `{kind}`" in md, needle
        assert f"**value**: `{shown}`" in md, needle
        assert f"parameter `{param}` of `steps/read.py:read`" in md, needle
    # inside a literal: still the whole input
    md, span = _hover_on(doc, INPUTS_MANIFEST, "{a: 2}", 1)
    assert "`array`" in md and "parameter `rows`" in md
    assert span.end_column - span.column == len("[1, {a: 2}]")
    # on the parameter name: the same card, over the key
    md, span = _hover_on(doc, INPUTS_MANIFEST, "limit: 3", 1)
    assert "`integer`" in md and span.end_column - span.column == len("limit")
    # the `inputs` key itself keeps its schema description
    md, _ = _hover_on(doc, INPUTS_MANIFEST, "inputs:", 1)
    assert md.startswith("**`inputs`**")


def test_hover_on_inputs_with_unknown_references_or_a_broken_manifest():
    # an undeclared source: the rule card (SM102) under the cursor wins
    text = INPUTS_MANIFEST.replace("sources.invoices", "sources.invoicez")
    md, _ = _hover_on(parse_manifest(text, "workflow.yaml"), text, "sources.invoicez", 10)
    assert "SM102" in md
    # the schema fails elsewhere (no workflow model): input hovers still work off the YAML tree
    text = INPUTS_MANIFEST.replace("version: 1", "version: zero")
    doc = parse_manifest(text, "workflow.yaml")
    assert doc.workflow is None
    md, _ = _hover_on(doc, text, "steps.read.output", 7)
    assert "> Read the invoices." in md
    md, _ = _hover_on(doc, text, "base: GBP", 7)
    assert "literal input passed verbatim" in md
