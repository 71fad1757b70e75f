"""Rename (prepare_rename + rename) on cursor-marked documents: the full edit set, the text of
every file after applying it, and a clean whole-workflow check of the renamed folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from nav_kit import BASE, BILLS_CONN_PY, FILES, MATCH_PY, workspace
from stepsmith.runner.fixes import apply_edits
from stepsmith.runner.language.rename import (
    FileRename,
    RenameError,
    make_target_folder,
    prepare_rename,
    rename,
)
from stepsmith.runner.manifest import check_workflow


def apply(at, plan) -> dict[str, str]:
    """Write the plan to disk as a client would (edits, then folder renames); the new texts
    by path relative to the workflow folder."""
    for path, edits in plan.edits.items():
        text = at.snapshot.read_text(path)
        Path(path).write_text(apply_edits(text, edits))
    for r in plan.renames:
        os.rename(r.old, r.new)
    return {rel: (at.root / rel).read_text() for rel in FILES}


def clean(root: Path) -> list:
    check = check_workflow(root / "workflow.yaml")
    return [(p.name, q.code, q.message) for p, probs in check.problems.items() for q in probs]


def test_the_base_workflow_checks_clean(tmp_path):
    workspace(tmp_path, "workflow.yaml", BASE + "|")
    assert clean(tmp_path) == []


def test_rename_a_step_id_from_its_use_renames_id_uses_and_fixtures(tmp_path):
    marked = BASE.replace("matches: steps.match", "matches: steps.ma|tch")
    fx = tmp_path / "fixtures/match"
    fx.mkdir(parents=True)
    (fx / "one.json").write_text('{"inputs": {}, "expected": {"output": []}}')
    at = workspace(tmp_path, "workflow.yaml", marked)
    assert prepare_rename(at.snapshot, at.path, at.line, at.column)[1] == "match"
    plan = rename(at.snapshot, at.path, at.line, at.column, "pair_up")
    assert [(s.line, s.column, s.end_column, e.new_text) for e in plan.edits[at.path]
            for s in [e.span]] == [(14, 8, 13, "pair_up"), (25, 21, 26, "pair_up")]
    assert list(plan.edits) == [at.path]
    assert plan.renames == (FileRename(str(fx), str(tmp_path / "fixtures/pair_up")),)
    texts = apply(at, plan)
    assert texts["workflow.yaml"] == BASE.replace("id: match", "id: pair_up").replace(
        "steps.match.output", "steps.pair_up.output")
    assert (tmp_path / "fixtures/pair_up/one.json").is_file() and not fx.exists()
    assert clean(tmp_path) == []


def test_rename_a_step_id_covers_every_manifest_of_the_folder(tmp_path):
    other = BASE.replace("workflow: invoice-matching", "workflow: second")
    files = {**FILES, "second.workflow.yaml": other}
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("- id: ma", "- id: m|a"), files)
    plan = rename(at.snapshot, at.path, at.line, at.column, "pair")
    assert sorted(plan.edits) == [at.p("second.workflow.yaml"), at.path]
    assert [e.span.line for e in plan.edits[at.p("second.workflow.yaml")]] == [14, 25]
    assert plan.renames == () and plan.notes == ()  # no fixtures folder yet


def test_a_client_without_file_renames_is_told_to_rename_the_folder(tmp_path):
    (tmp_path / "fixtures/match").mkdir(parents=True)
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("- id: ma", "- id: m|a"))
    plan = rename(at.snapshot, at.path, at.line, at.column, "pair", fixtures="none")
    assert plan.renames == ()
    assert plan.notes == (("This editor cannot rename folders: rename fixtures/match/ to "
                          "fixtures/pair/ yourself, or its fixtures no longer belong to the step."),)


def test_a_symlinked_fixtures_folder_is_not_renamed(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures/match").symlink_to(tmp_path / "elsewhere")
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("- id: ma", "- id: m|a"))
    plan = rename(at.snapshot, at.path, at.line, at.column, "pair")
    assert plan.renames == () and plan.notes == ("fixtures/match/ is a symbolic link: it was not renamed.",)


def test_rename_a_step_function_from_its_def(tmp_path):
    at = workspace(tmp_path, "steps/match.py", MATCH_PY.replace("def match", "def mat|ch"))
    assert prepare_rename(at.snapshot, at.path, at.line, at.column)[1] == "match"
    plan = rename(at.snapshot, at.path, at.line, at.column, "pair_invoices")
    assert sorted(plan.edits) == [at.p("steps/match.py"), at.p("workflow.yaml")]
    texts = apply(at, plan)
    assert texts["steps/match.py"] == MATCH_PY.replace("def match", "def pair_invoices")
    assert texts["workflow.yaml"] == BASE.replace("steps/match.py:match", "steps/match.py:pair_invoices")
    assert clean(tmp_path) == []


def test_rename_a_step_function_from_its_code_value(tmp_path):
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("bills.py:dr", "bills.py:d|r"))
    plan = rename(at.snapshot, at.path, at.line, at.column, "draft_all")
    texts = apply(at, plan)
    assert texts["steps/bills.py"] == BILLS_CONN_PY.replace("def draft", "def draft_all")
    assert texts["workflow.yaml"] == BASE.replace("bills.py:draft", "bills.py:draft_all")
    assert clean(tmp_path) == []


def test_rename_a_connection_alias_everywhere(tmp_path):
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("  xero: {", "  xe|ro: {"))
    plan = rename(at.snapshot, at.path, at.line, at.column, "ledger")
    assert [e.span.line for e in plan.edits[at.path]] == [7, 9, 10, 12, 26]
    texts = apply(at, plan)
    assert texts["workflow.yaml"] == BASE.replace("xero", "ledger")
    assert texts["steps/bills.py"] == BILLS_CONN_PY.replace("xero", "ledger")
    assert texts["steps/match.py"] == MATCH_PY
    assert clean(tmp_path) == []


def test_rename_a_connection_from_a_step_file_subscript(tmp_path):
    marked = BILLS_CONN_PY.replace('connections["xero"]', 'connections["x|ero"]')
    at = workspace(tmp_path, "steps/bills.py", marked)
    span, name = prepare_rename(at.snapshot, at.path, at.line, at.column)
    assert (name, span.line, span.column, span.end_column) == ("xero", 2, 25, 29)
    texts = apply(at, rename(at.snapshot, at.path, at.line, at.column, "ledger"))
    assert texts["workflow.yaml"] == BASE.replace("xero", "ledger")
    assert clean(tmp_path) == []


def test_rename_an_effect_from_emit(tmp_path):
    marked = BILLS_CONN_PY.replace('emit("draft_bill"', 'emit("draft_b|ill"')
    at = workspace(tmp_path, "steps/bills.py", marked)
    texts = apply(at, rename(at.snapshot, at.path, at.line, at.column, "bill"))
    assert texts["workflow.yaml"] == BASE.replace("draft_bill", "bill")
    assert texts["steps/bills.py"] == BILLS_CONN_PY.replace("draft_bill", "bill")
    assert clean(tmp_path) == []


def test_rename_a_source_from_its_use(tmp_path):
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("sources.invoices", "sources.inv|oices"))
    texts = apply(at, rename(at.snapshot, at.path, at.line, at.column, "bills_in"))
    assert texts["workflow.yaml"] == BASE.replace("  invoices: {", "  bills_in: {").replace(
        "sources.invoices", "sources.bills_in")
    assert clean(tmp_path) == []


@pytest.mark.parametrize("marked, new, message", [
    (BASE.replace("- id: ma", "- id: m|a"), "Pair",
     "'Pair' is not a valid step id: lowercase letters, digits, '-' or '_', starting with a letter."),
    (BASE.replace("- id: ma", "- id: m|a"), "draft", "'draft' is already a step of workflow.yaml."),
    (BASE.replace("  xero: {", "  xe|ro: {"), "my-ledger",
     ("'my-ledger' is not a valid connection alias: lowercase letters, digits or '_', starting "
     "with a letter.")),
    (BASE.replace("sources.invoices", "sources.inv|oices"), "purchase_orders",
     "'purchase_orders' is already declared under `sources` in workflow.yaml."),
    (BASE.replace("bills.py:dr", "bills.py:d|r"), "class",
     ("'class' is not a valid step function: an ASCII Python identifier, not a keyword, not "
     "starting with '__'.")),
    (BASE.replace("explanation: Pair", "explanation: Pa|ir"), "x",
     ("Nothing to rename here: put the cursor on a step id, a step function, a source, a "
     "connection alias or an effect name.")),
])
def test_refusals_say_why(tmp_path, marked, new, message):
    at = workspace(tmp_path, "workflow.yaml", marked)
    with pytest.raises(RenameError) as exc:
        rename(at.snapshot, at.path, at.line, at.column, new)
    assert str(exc.value) == message


def test_a_taken_fixtures_folder_refuses_the_step_rename(tmp_path):
    (tmp_path / "fixtures/pair").mkdir(parents=True)
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("- id: ma", "- id: m|a"))
    with pytest.raises(RenameError, match=r"'pair' is taken: fixtures/pair/ already exists\."):
        rename(at.snapshot, at.path, at.line, at.column, "pair")


def test_a_function_name_taken_in_its_file_is_refused(tmp_path):
    text = MATCH_PY + "\n\ndef helper(x):\n    return x\n"
    at = workspace(tmp_path, "steps/match.py", text.replace("def match", "def |match"))
    with pytest.raises(RenameError, match=r"'helper' is already a function of match\.py\."):
        rename(at.snapshot, at.path, at.line, at.column, "helper")


def test_nothing_renamable_gives_no_prepare(tmp_path):
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("version: 3", "vers|ion: 3"))
    assert prepare_rename(at.snapshot, at.path, at.line, at.column) is None


def test_a_step_file_shared_by_two_workflows_renames_the_alias_in_both(tmp_path):
    files = {**FILES, "second.workflow.yaml": BASE.replace("workflow: invoice-matching",
                                                           "workflow: second")}
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("  xero: {", "  xe|ro: {"), files)
    plan = rename(at.snapshot, at.path, at.line, at.column, "ledger")
    assert plan.name.scope == (at.p("second.workflow.yaml"), at.path)
    assert sorted(plan.edits) == [at.p("second.workflow.yaml"), at.p("steps/bills.py"), at.path]
    apply(at, plan)
    assert (tmp_path / "second.workflow.yaml").read_text() == BASE.replace(
        "workflow: invoice-matching", "workflow: second").replace("xero", "ledger")
    check = check_workflow(tmp_path / "second.workflow.yaml")
    assert [q.code for probs in check.problems.values() for q in probs] == []


def test_a_client_that_renames_only_files_moves_each_fixture(tmp_path):
    fx = tmp_path / "fixtures/match"
    fx.mkdir(parents=True)
    (fx / "a.json").write_text("{}")
    (fx / "b.json").write_text("[]")
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("- id: ma", "- id: m|a"))
    plan = rename(at.snapshot, at.path, at.line, at.column, "pair", fixtures="files")
    new = tmp_path / "fixtures/pair"
    assert plan.renames == (FileRename(str(fx / "a.json"), str(new / "a.json")),
                            FileRename(str(fx / "b.json"), str(new / "b.json")))
    assert (plan.make_folder, plan.deletes, plan.notes) == (str(new), (str(fx),), ())
    assert not new.exists()
    make_target_folder(plan)
    assert new.is_dir() and sorted(p.name for p in new.iterdir()) == []


def test_the_target_folder_is_never_made_through_a_symlink(tmp_path):
    (tmp_path / "fixtures/match").mkdir(parents=True)
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("- id: ma", "- id: m|a"))
    plan = rename(at.snapshot, at.path, at.line, at.column, "pair", fixtures="files")
    (tmp_path / "fixtures/match").rename(tmp_path / "moved")
    (tmp_path / "fixtures").rename(tmp_path / "real")
    (tmp_path / "fixtures").symlink_to(tmp_path / "real")  # swapped after the plan was made
    with pytest.raises(OSError, match="symlink"):
        make_target_folder(plan)
    assert not (tmp_path / "real/pair").exists()


RECORDED = """{
  "inputs": {"matches": []},
  "expected": {"output": 0},
  "recorded_from": {
    "case": "monday",
    "upstream": {"match": {"fixture": "monday", "request_sha256": "ab"}}
  }
}
"""


def test_a_step_rename_keeps_the_provenance_of_downstream_fixtures(tmp_path):
    (tmp_path / "fixtures/draft").mkdir(parents=True)
    (tmp_path / "fixtures/draft/monday.json").write_text(RECORDED)
    (tmp_path / "fixtures/match").mkdir()
    (tmp_path / "fixtures/match/monday.json").write_text('{"inputs": {}, "expected": {"output": []}}')
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("- id: ma", "- id: m|a"))
    plan = rename(at.snapshot, at.path, at.line, at.column, "pair")
    downstream = at.p("fixtures/draft/monday.json")
    assert [(e.span.line, e.span.column, e.span.end_column) for e in plan.edits[downstream]] == [
        (6, 18, 23)]
    apply(at, plan)
    assert (tmp_path / "fixtures/draft/monday.json").read_text() == RECORDED.replace(
        '{"match":', '{"pair":')
    assert (tmp_path / "fixtures/pair/monday.json").is_file()


HELPERS_PY = MATCH_PY + '''

def within(a, b, limit):
    return abs(a - b) <= limit


def closest(invoices, within):
    return [within for i in invoices]
'''


def test_a_function_rename_renames_its_calls_in_the_file_but_not_a_shadowing_name(tmp_path):
    text = HELPERS_PY.replace("> limit]", "> limit and within(1, 2, limit)]")
    assert text != HELPERS_PY
    at = workspace(tmp_path, "steps/match.py", text.replace("def within", "def wit|hin"))
    plan = rename(at.snapshot, at.path, at.line, at.column, "close_enough")
    assert list(plan.edits) == [at.path]  # no step runs it: the file only
    assert apply_edits(text, plan.edits[at.path]) == text.replace(
        "def within", "def close_enough").replace("and within(", "and close_enough(")


WORKFLOW_CASE = """{
  "sources": {"invoices": [{"id": 1}], "purchase_orders": []},
  "evaluation_time": "2026-12-01T07:00:00+00:00",
  "recorded": {"match": [{"id": 1, "note": "the invoices"}]}
}
"""


def test_workflow_cases_follow_a_step_and_a_source_rename(tmp_path):
    (tmp_path / "fixtures/_workflow").mkdir(parents=True)
    case = tmp_path / "fixtures/_workflow/monday.json"
    case.write_text(WORKFLOW_CASE)
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("- id: ma", "- id: m|a"))
    plan = rename(at.snapshot, at.path, at.line, at.column, "pair")
    assert [(e.span.line, e.span.column) for e in plan.edits[str(case)]] == [(4, 16)]
    apply(at, plan)
    assert case.read_text() == WORKFLOW_CASE.replace('{"match":', '{"pair":')

    at = workspace(tmp_path, "workflow.yaml", (tmp_path / "workflow.yaml").read_text().replace(
        "sources.invoices", "sources.inv|oices"))
    plan = rename(at.snapshot, at.path, at.line, at.column, "bills_in")
    apply(at, plan)
    assert case.read_text() == WORKFLOW_CASE.replace('{"match":', '{"pair":').replace(
        '{"invoices":', '{"bills_in":')  # "the invoices" (a value) stays
    assert clean(tmp_path) == []
