"""Folding and selection ranges on cursor-marked manifests and step files, parsed and broken."""

from __future__ import annotations

from cursor_kit import cursor
from nav_kit import BASE, workspace
from stepsmith.runner.language.ranges import Fold, folding_ranges, selection_ranges
from stepsmith.runner.problems import Span

STEP = '''# Match invoices.
# Two lines of comment.
import json
from decimal import (
    Decimal,
)


def match(rows, limit):
    out = {
        "a": 1,
    }
    for r in rows:
        if r > limit:
            out["a"] += 1
        elif r < 0:
            pass
        else:
            out["a"] -= 1
    try:
        json.dumps(out)
    except ValueError:
        return None
    return out
'''


def chain(spans):
    return [(s.line, s.column, s.end_line, s.end_column) for s in spans]


def test_manifest_folds_every_multi_line_key_and_step(tmp_path):
    at = workspace(tmp_path, "workflow.yaml", "# A workflow.\n# Two lines.\n" + BASE + "|")
    assert folding_ranges(at.snapshot, at.path) == [
        Fold(1, 2, "comment"), Fold(6, 7), Fold(8, 9), Fold(10, 12), Fold(13, 14), Fold(15, 29),
        Fold(16, 22), Fold(19, 22), Fold(23, 29), Fold(26, 27)]


def test_a_broken_manifest_folds_by_indentation(tmp_path):
    broken = BASE.replace("    code: steps/bills.py:draft\n", "    code: [steps/bills.py:draft\n")
    at = workspace(tmp_path, "workflow.yaml", broken + "|")
    assert at.snapshot.manifest_doc(at.path).root is None
    assert folding_ranges(at.snapshot, at.path) == [
        Fold(4, 5), Fold(6, 7), Fold(8, 10), Fold(11, 12), Fold(13, 27), Fold(14, 20),
        Fold(17, 20), Fold(21, 27), Fold(24, 25)]


def test_step_file_folds_blocks_brackets_imports_and_comments(tmp_path):
    at = workspace(tmp_path, "steps/match.py", STEP + "|")
    assert folding_ranges(at.snapshot, at.path) == [
        Fold(1, 2, "comment"), Fold(3, 6, "imports"), Fold(9, 24), Fold(10, 12), Fold(13, 19),
        Fold(14, 15), Fold(16, 17), Fold(18, 19), Fold(20, 21), Fold(22, 23)]


def test_a_step_file_that_does_not_parse_folds_by_indentation(tmp_path):
    at = workspace(tmp_path, "steps/match.py", STEP.replace("limit):", "limit)") + "|")
    assert folding_ranges(at.snapshot, at.path) == [
        Fold(1, 2, "comment"), Fold(4, 5), Fold(9, 24), Fold(10, 11), Fold(13, 19), Fold(14, 15),
        Fold(16, 17), Fold(18, 19), Fold(20, 21), Fold(22, 23)]


def test_manifest_selection_grows_from_the_step_id_to_the_document(tmp_path):
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("steps.match.output", "steps.ma|tch.output"))
    (got,) = selection_ranges(at.snapshot, at.path, [(at.line, at.column)])
    assert chain(got) == [
        (25, 21, 25, 26),  # match
        (25, 15, 25, 33),  # steps.match.output
        (25, 6, 25, 33),  # matches: ...
        (24, 4, 25, 33),  # inputs: ...
        (21, 4, 27, 25),  # the step
        (14, 2, 27, 25),  # the steps list
        (13, 0, 27, 25),  # steps: ...
        (1, 0, 27, 25),  # the mapping
        (1, 0, 28, 0)]  # the document


def test_manifest_selection_on_a_key(tmp_path):
    at = workspace(tmp_path, "workflow.yaml", BASE.replace("tolerance:", "toler|ance:"))
    (got,) = selection_ranges(at.snapshot, at.path, [(at.line, at.column)])
    assert chain(got)[:3] == [(20, 6, 20, 15), (20, 6, 20, 23), (18, 6, 20, 23)]


def test_step_selection_grows_through_the_ast(tmp_path):
    marked = STEP.replace('out["a"] += 1', 'out["|a"] += 1')
    at = workspace(tmp_path, "steps/match.py", marked)
    (got,) = selection_ranges(at.snapshot, at.path, [(at.line, at.column)])
    assert chain(got) == [
        (15, 17, 15, 18),  # a
        (15, 16, 15, 19),  # "a"
        (15, 12, 15, 20),  # out["a"]
        (15, 12, 15, 25),  # out["a"] += 1
        (14, 8, 19, 25),  # if ... else
        (13, 4, 19, 25),  # for
        (9, 0, 24, 14),  # def
        (1, 0, 25, 0)]  # the document


def test_step_selection_columns_are_code_points():
    text, line, col = cursor('def f():\n    return "été" + x|y\n')
    from stepsmith.runner.language.ranges import step_selection
    assert chain(step_selection(text, line, col))[:3] == [
        (2, 19, 2, 21), (2, 11, 2, 21), (2, 4, 2, 21)]  # bytes would say 23


def test_selection_of_a_broken_step_file_is_word_line_document(tmp_path):
    marked = STEP.replace("limit):", "limit)").replace("json.dumps", "json.du|mps")
    at = workspace(tmp_path, "steps/match.py", marked)
    (got,) = selection_ranges(at.snapshot, at.path, [(at.line, at.column)])
    assert got == [Span(21, 13, 21, 18), Span(21, 8, 21, 23), Span(1, 0, 25, 0)]
