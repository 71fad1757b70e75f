"""Definition, references, highlight, document links and workspace symbols on cursor-marked
documents (nav_kit: tests/manifest's BASE workflow on disk)."""

from __future__ import annotations

import os

import pytest
from nav_kit import BASE, BILLS_CONN_PY, MATCH_PY, workspace
from stepsmith.runner.language.navigation import (
    definition,
    document_highlight,
    references,
)
from stepsmith.runner.language.navigation_links import (
    Link,
    document_links,
    workspace_symbols,
)


def spans(locs, at):
    """(file relative to the workflow folder, line, column, end column) of each location."""
    return [(locs_path(loc.path, at), loc.span.line, loc.span.column, loc.span.end_column)
            for loc in locs]


def locs_path(path, at):
    return os.path.relpath(path, at.root)


@pytest.mark.parametrize("marked, declaration", [
    (BASE.replace("sources.invoices", "sources.inv|oices"), ("workflow.yaml", 9, 2, 10)),
    (BASE.replace("matches: steps.match", "matches: steps.mat|ch"), ("workflow.yaml", 14, 8, 13)),
    (BASE.replace("connections: [xero]", "connections: [xe|ro]"), ("workflow.yaml", 7, 2, 6)),
    (BASE.replace("invoices: {connection: xero", "invoices: {connection: |xero"),
     ("workflow.yaml", 7, 2, 6)),
    (BASE.replace("effects: [draft_bill]", "effects: [draft_bill|]"), ("workflow.yaml", 12, 2, 12)),
])
def test_definition_of_a_name_in_the_manifest(tmp_path, marked, declaration):
    at = workspace(tmp_path, "workflow.yaml", marked)
    assert spans(definition(at.snapshot, at.path, at.line, at.column), at) == [declaration]


def test_definition_from_a_step_file_use_goes_to_the_manifest(tmp_path):
    marked = BILLS_CONN_PY.replace('emit("draft_bill"', 'emit("dr|aft_bill"')
    at = workspace(tmp_path, "steps/bills.py", marked)
    assert spans(definition(at.snapshot, at.path, at.line, at.column), at) == [
        ("workflow.yaml", 12, 2, 12)]


def test_references_of_a_connection_alias(tmp_path):
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("  xero: {", "  |xero: {"))
    assert spans(references(at.snapshot, at.path, at.line, at.column), at) == [
        ("steps/bills.py", 2, 25, 29), ("steps/bills.py", 3, 29, 33),
        ("workflow.yaml", 7, 2, 6), ("workflow.yaml", 9, 25, 29), ("workflow.yaml", 10, 32, 36),
        ("workflow.yaml", 12, 27, 31), ("workflow.yaml", 26, 18, 22)]
    without = references(at.snapshot, at.path, at.line, at.column, include_declaration=False)
    assert ("workflow.yaml", 7, 2, 6) not in spans(without, at) and len(without) == 6


def test_references_of_a_step_id(tmp_path):
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("- id: match", "- id: match|"))
    assert spans(references(at.snapshot, at.path, at.line, at.column), at) == [
        ("workflow.yaml", 14, 8, 13), ("workflow.yaml", 25, 21, 26)]


def test_references_from_a_code_value_are_the_def_and_every_code(tmp_path):
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("bills.py:draft", "bills.py:dra|ft"))
    assert spans(references(at.snapshot, at.path, at.line, at.column), at) == [
        ("steps/bills.py", 1, 4, 9), ("workflow.yaml", 23, 10, 30)]


def test_references_from_a_function_body_are_unchanged(tmp_path):
    at = workspace(tmp_path, "steps/match.py", MATCH_PY.replace("limit = ", "li|mit = "))
    assert spans(references(at.snapshot, at.path, at.line, at.column), at) == [
        ("steps/match.py", 4, 4, 9), ("workflow.yaml", 16, 10, 30)]


def test_highlight_is_this_file_only_with_the_declaration_written(tmp_path):
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("effects: [draft_bill]", "effects: [|draft_bill]"))
    assert [((s.line, s.column, s.end_column), k)
            for s, k in document_highlight(at.snapshot, at.path, at.line, at.column)] == [
        ((12, 2, 12), "write"), ((27, 14, 24), "read")]


def test_highlight_nothing_off_a_name(tmp_path):
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("version: 3", "version: |3"))
    assert document_highlight(at.snapshot, at.path, at.line, at.column) == []
    assert definition(at.snapshot, at.path, at.line, at.column) == []
    assert references(at.snapshot, at.path, at.line, at.column) == []


def test_document_links_to_functions_and_fixture_folders(tmp_path):
    (tmp_path / "fixtures/draft").mkdir(parents=True)
    at = workspace(tmp_path, "workflow.yaml", BASE + "|")
    links = document_links(at.snapshot, at.path)
    assert [(k.span.line, k.span.column, k.span.end_column, locs_path(k.target, at), k.line)
            for k in links] == [
        (16, 10, 30, "steps/match.py", 4), (21, 8, 13, "fixtures/draft", None),
        (23, 10, 30, "steps/bills.py", 1)]
    assert links[1] == Link(links[1].span, str(tmp_path / "fixtures/draft"), None,
                            "The fixtures of draft (fixtures/draft/)")


def test_a_symlinked_fixture_folder_gets_no_link(tmp_path):
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures/draft").symlink_to(tmp_path)
    at = workspace(tmp_path, "workflow.yaml", BASE + "|")
    assert [locs_path(k.target, at) for k in document_links(at.snapshot, at.path)] == [
        "steps/match.py", "steps/bills.py"]


def test_workspace_symbols_are_every_step_of_every_workflow(tmp_path):
    files = {"a/workflow.yaml": BASE, "a/steps/match.py": MATCH_PY, "a/steps/bills.py": BILLS_CONN_PY,
             "b/workflow.yaml": BASE.replace("workflow: invoice-matching", "workflow: second")
             .replace("id: draft", "id: post")}
    at = workspace(tmp_path, "b/steps/bills.py", BILLS_CONN_PY + "|", files)
    got = [(s.name, s.workflow, locs_path(s.location.path, at), s.location.span.line, s.code)
           for s in workspace_symbols(at.snapshot)]
    assert got == [("match", "invoice-matching", "a/workflow.yaml", 14, "steps/match.py:match"),
                   ("draft", "invoice-matching", "a/workflow.yaml", 21, "steps/bills.py:draft"),
                   ("match", "second", "b/workflow.yaml", 14, "steps/match.py:match"),
                   ("post", "second", "b/workflow.yaml", 21, "steps/bills.py:draft")]
    assert [s.name for s in workspace_symbols(at.snapshot, "DRT")] == ["draft"]
    assert [s.name for s in workspace_symbols(at.snapshot, "pst")] == ["post"]


def test_highlight_reads_no_other_file(tmp_path):
    """documentHighlight runs on every cursor move: only the document itself is read."""
    from stepsmith.runner.language.navigation_names import Names

    at = workspace(tmp_path, "workflow.yaml", BASE.replace("  xero: {", "  |xero: {"))
    names = Names(at.snapshot)
    name, _ = names.at(at.path, at.line, at.column, closed=False)
    assert len(names.occurrences(name, only=at.path)) == 5
    assert set(names._memo) == {at.path}  # the step files were not parsed
    assert len(names.occurrences(name)) == 7 and len(names._memo) == 3
