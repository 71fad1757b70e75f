"""Which steps a mutants run changes, which fixtures may notice a change, and the code a
fixture's verdict depends on.

- Steps: PATH, `--step` and `-k` as `stepsmith test` takes them (runner/app/selection.py);
  a step is chosen when its fixtures are selected, or when the selection names it (a workflow,
  its step file, `PATH::step`, a `-k` matching `workflow::step`) even with no fixture at all,
  so an untested step shows all its mutants surviving.
- Fixtures: only those whose coverage on the unmutated code reaches the statement holding the
  change: every other fixture runs the mutant exactly as the original (same lines, same
  values), so it cannot notice it.
- The code a verdict depends on: `generate.closure` of the fixture's step function.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from stepsmith.runner.app.selection import compile_keywords, keyword_match, parse_target
from stepsmith.runner.app.suite import Case
from stepsmith.runner.mutants.generate import closure

if TYPE_CHECKING:
    from stepsmith.runner.app.workflow import LoadedWorkflow
    from stepsmith.runner.manifest.model import Step


def chosen_steps(selection, paths: list[str], steps: list[str], keywords: list[str]
                 ) -> list[tuple[LoadedWorkflow, Step]]:
    """(LoadedWorkflow, Step) pairs, in workflow then manifest order."""
    targets = [parse_target(p) for p in paths]
    compiled = compile_keywords(keywords)
    with_fixtures = {(c.workflow.manifest_path, c.step_id) for c in selection.selected}
    out: list[tuple[LoadedWorkflow, Step]] = []
    for lw in selection.workflows:
        for step in (lw.workflow.steps if lw.workflow is not None else []):
            if (lw.manifest_path, step.id) in with_fixtures:
                out.append((lw, step))
                continue
            probe = Case(id=f"{lw.shown}::{step.id}", workflow=lw, step_id=step.id, case="",
                         path=None)
            if steps and step.id not in steps:
                continue
            if any(t.case for t in targets if t.step == step.id):
                continue  # PATH::step::case names a fixture, and it was not selected
            if any(t.selects(probe) for t in targets) and keyword_match(compiled, probe.id):
                out.append((lw, step))
    return out


def covering(ran: Mapping[str, frozenset[int]], statement: int, order: Iterable[str]
             ) -> list[str]:
    """The fixtures (ids, in `order`) whose run reached `statement`."""
    return [cid for cid in order if statement in ran.get(cid, frozenset())]


def closure_text(text: str, tree: ast.Module, function: str, *, with_lines: bool) -> str:
    """What `generate.closure(tree, [function])` can do, as a key. With lines (coverage names
    them, and its pragmas are comments): the statements' text and first line numbers.
    Without (a verdict): their syntax trees without positions, so an edit to comments,
    blank lines or layout alone keeps every verdict (the same tree runs the same way)."""
    if not with_lines:
        return "\0".join(ast.dump(node) for node in closure(tree, [function]))
    lines = text.splitlines(keepends=True)
    parts = []
    for node in closure(tree, [function]):
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        chunk = "".join(lines[start - 1:node.end_lineno])
        parts.append(f"{start}:{chunk}")
    return "\0".join(parts)
