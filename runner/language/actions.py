"""Code actions: the quick fixes problems carry, as typed edits (runner coordinates).

Step files: the rule that found the problem computed its edits (`runner.fixes.fix_of`); nothing
here re-parses the code or matches message text. Manifests: a `{"fix": "replace",
"replacement": ...}` hint replaces the problem's span; a step missing its `explanation:` gets a
placeholder the author must fill in, QUOTED so the YAML stays valid (`TODO: say…` unquoted is a
mapping value containing `: `). Deliberately no "suppress"/"ignore" action: a security rule
cannot be waived from the editor.
"""

from __future__ import annotations

import json

from stepsmith.runner.fixes import Fix, TextEdit, fix_of
from stepsmith.runner.problems import Problem, Span

from .lines import split_lines
from .manifest import step_items

EXPLANATION_PLACEHOLDER = "TODO: say in plain language what this step does"


def step_fixes(problem: Problem) -> list[Fix]:
    fix = fix_of(problem)
    return [fix] if fix is not None else []


def manifest_fixes(doc, problem: Problem) -> list[Fix]:
    data = problem.data or {}
    if data.get("fix") == "replace" and isinstance(data.get("replacement"), str):
        new = data["replacement"]
        return [Fix(f"Replace with '{new}'", (TextEdit(problem.span, new),), problem.code, "replace")]
    if problem.code == "SM004" and "'explanation'" in problem.message:
        return _explanation_placeholder(doc, problem)
    return []


def _explanation_placeholder(doc, problem: Problem) -> list[Fix]:
    lines = split_lines(doc.text)
    sp = problem.span
    for _, item in step_items(doc):
        s = item.span
        if not ((s.line, s.column) <= (sp.line, sp.column) <= (s.end_line, s.end_column)):
            continue
        if item.get("explanation") is not None or getattr(item, "flow", False):
            return []
        anchor = item.pair("id") or (item.pairs[0] if item.pairs else None)
        if anchor is None:
            return []
        col, after = anchor.key.span.column, anchor.value.span.end_line
        if after > len(lines):
            return []
        raw = lines[after - 1]
        ending = "\r\n" if raw.endswith("\r\n") else "\n"
        text = " " * col + "explanation: " + json.dumps(EXPLANATION_PLACEHOLDER) + ending
        if not raw.endswith(("\n", "\r")):
            edit = TextEdit(Span(after, len(raw), after, len(raw)), ending + text.rstrip("\r\n"))
        else:
            edit = TextEdit(Span(after + 1, 0, after + 1, 0), text)
        return [Fix("Add an explanation placeholder (fill it in)", (edit,), problem.code,
                    "add-explanation")]
    return []


def code_actions(snapshot, path: str, problems: list[Problem]) -> list[Fix]:
    """The fixes for `problems` (those the client sent back) in the file `path`."""
    from stepsmith.runner.workspace.diagnostics import is_manifest_path

    if is_manifest_path(path):
        doc = snapshot.manifest_doc(path)
        return [f for p in problems for f in (manifest_fixes(doc, p) if doc is not None else [])]
    return [f for p in problems for f in step_fixes(p)]
