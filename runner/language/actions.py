"""Code actions: the quick fixes problems carry, as typed edits (runner coordinates).

`quick_fixes(snapshot, path, problems)` -> [CodeAction]: every fix each problem carries
(`runner.fixes.fixes_of`: the first is preferred), plus "declare this effect" for SS601, an
edit of the manifests running the file (effect_fix.py). `code_actions` is the same-file part.

Step files: the rule that found the problem computed its edits (`runner.fixes.fix_of`), kept
only when they keep the file meaning what it meant (`runner.fix_safety.vet`, on the snapshot's
text); nothing here matches message text. Manifests: a `{"fix": "replace",
"replacement": ...}` hint replaces the problem's span; a step missing its `explanation:` gets a
placeholder the author must fill in, QUOTED so the YAML stays valid (`TODO: say…` unquoted is a
mapping value containing `: `). Deliberately no "suppress"/"ignore" action: a security rule
cannot be waived from the editor.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass

from stepsmith.runner.fix_safety import vet
from stepsmith.runner.fixes import Fix, TextEdit, fixes_of
from stepsmith.runner.lines import split_lines
from stepsmith.runner.manifest.yamlpos.nodes import step_items
from stepsmith.runner.problems import Problem, Span
from stepsmith.runner.workspace.diagnostics import diagnostics, is_manifest_path
from stepsmith.runner.workspace.index import norm

from .effect_fix import declare_effect

EXPLANATION_PLACEHOLDER = "TODO: say in plain language what this step does"
QUICKFIX = "quickfix"


@dataclass(frozen=True)
class CodeAction:
    title: str
    changes: Mapping[str, tuple[TextEdit, ...]]  # path -> edits (positions of that file)
    kind: str = QUICKFIX
    code: str = ""  # the rule it fixes
    fix_kind: str = ""  # e.g. "remove-import"
    preferred: bool = False
    problem: Problem | None = None


def step_fixes(problem: Problem) -> list[Fix]:
    return fixes_of(problem)


def manifest_fixes(doc, problem: Problem) -> list[Fix]:
    found = fixes_of(problem)
    if found:
        return found
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
        if item.get("explanation") is not None:
            return []
        if getattr(item, "flow", False):  # `- {id: x, code: ...}`: before its `}`
            if s.line != s.end_line:
                return []
            at = Span(s.end_line, s.end_column - 1, s.end_line, s.end_column - 1)
            edit = TextEdit(at, ", explanation: " + json.dumps(EXPLANATION_PLACEHOLDER))
            return [Fix("Add an explanation placeholder (fill it in)", (edit,), problem.code,
                        "add-explanation")]
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

    if is_manifest_path(path):
        doc = snapshot.manifest_doc(path)
        return [f for p in problems for f in (manifest_fixes(doc, p) if doc is not None else [])]

    text = snapshot.read_text(path)  # a step file's fixes: only those that keep its meaning
    vetted = vet(text, problems) if text is not None else [_without_fixes(p) for p in problems]
    return [f for p in vetted for f in step_fixes(p)]


def _without_fixes(problem: Problem) -> Problem:
    return dataclasses.replace(problem, data={})


def fixes_for(snapshot, path: str, problem: Problem) -> list[Fix]:
    return code_actions(snapshot, path, [problem])


def quick_fixes(snapshot, path: str, problems: list[Problem]) -> list[CodeAction]:
    """Every quick fix for `problems` in `path`, as code actions (the first fix of a problem
    preferred when it is safe: a guess or a fix that changes what the code does is the
    author's choice); no "suppress" action exists for any rule."""

    out: list[CodeAction] = []
    for p in problems:
        for i, fx in enumerate(fixes_for(snapshot, path, p)):
            out.append(CodeAction(fx.title, {path: fx.edits}, QUICKFIX, p.code, fx.kind,
                                  i == 0 and fx.safe, p))
        if p.code in ("SM204", "SM205") and "manifest" in (p.data or {}):
            out.extend(_from_the_manifest(snapshot, p))
        if p.code == "SS601" and not path.endswith((".yaml", ".yml")):
            for title, _m, changes in declare_effect(snapshot, path, p):
                out.append(CodeAction(title, changes, QUICKFIX, p.code, "declare-effect", False, p))
    return out


def _from_the_manifest(snapshot, problem: Problem) -> list[CodeAction]:
    """A signature mismatch shown on the `def` (SM204/SM205 in the step file): the fixes of
    the same problem in the manifest, as edits of the manifest."""

    data = problem.data
    m, line, name = data.get("manifest"), data.get("manifest_line"), data.get("name")
    if not isinstance(m, str) or not isinstance(name, str):
        return []
    m = norm(m)
    for p in diagnostics(snapshot, m):
        if p.code == problem.code and p.span.line == line and f"'{name}'" in p.message:
            doc = snapshot.manifest_doc(m)
            return [CodeAction(fx.title + " (in the manifest)", {m: fx.edits}, QUICKFIX,
                               problem.code, fx.kind, False, problem)
                    for fx in (manifest_fixes(doc, p) if doc is not None else [])]
    return []
