"""`source.fixAll.stepsmith`: every safe fix of one file at once, as ruff's fix-all does.

Safe = the problem's first (preferred) fix keeps the program meaning what it meant
(`runner.fixes.Fix.safe`): removing an import nothing uses (a `typing` import used only in
annotations, with them), the explanation placeholder, adding missing inputs, removing an
unused input or a grant the step cannot use. A did-you-mean replacement is a guess, `seed=0`
and removing a decorator change what the code does, and "declare this effect" widens what a
step may reach: all are offered one by one, never applied wholesale. Fixes are applied in
rounds on the text, each round re-checking it (so `import os, sys` loses both names though
their edits overlap), non-overlapping within a round, and in a step file only together as
long as the round's result still keeps every name's meaning (`import os` and `import os.path`
are each removable alone while the other binds `os`, not both); the answer is the difference
between the original and the final text as minimal line hunks (difflib).
"""

from __future__ import annotations

import difflib

from stepsmith.runner.fix_safety import keeps_meaning
from stepsmith.runner.fixes import SAFE_KINDS, TextEdit, apply_edits
from stepsmith.runner.lines import split_lines
from stepsmith.runner.problems import Span
from stepsmith.runner.workspace.diagnostics import diagnostics, is_manifest_path
from stepsmith.runner.workspace.snapshot import Buffer, WorkspaceSnapshot

from .actions import CodeAction, fixes_for

FIX_ALL = "source.fixAll.stepsmith"
__all__ = ["FIX_ALL", "SAFE_KINDS", "deferred", "fix_all", "fix_text", "hunks"]
MAX_ROUNDS = 8  # each round removes at least one problem; a bound all the same


def _with_text(snapshot: WorkspaceSnapshot, path: str, text: str) -> WorkspaceSnapshot:
    old = snapshot.buffer(path)
    buf = Buffer(text, old.version if old else None, tuple(split_lines(text)),
                 old.language_id if old else "")
    return WorkspaceSnapshot.of(snapshot.index, {**snapshot.buffers, path: buf},
                                max_file_size=snapshot.max_file_size)


def _range(e: TextEdit) -> tuple[tuple[int, int], tuple[int, int]]:
    s = e.span
    return (s.line, s.column), (s.end_line, s.end_column)


def _overlaps(a, b) -> bool:
    return a[0] < b[1] and b[0] < a[1]  # two insertions at one point do not


def deferred(offered, *, unsafe: bool) -> set[int]:
    """Indices of the (problem, fixes) pairs whose fix must wait for another problem's guess:
    an unused input that looks like a misspelt parameter, or a misspelt key, is renamed (a
    guess); removing the input, adding the parameter as null or adding the missing key with a
    placeholder instead would drop the author's wiring or text silently. Shared by fix-all,
    `check --fix` and the MCP `check` tool (which offers no fix for these)."""
    renaming = {p.step for p, fx in offered
                if p.code == "SM204" and fx and not fx[0].safe}
    renamed_keys = {(p.step, e.new_text) for p, fx in offered if p.code == "SM003" and fx
                    for e in fx[0].edits}
    out = set()
    for i, (p, fx) in enumerate(offered):
        if not fx:
            continue
        if p.code == "SM004" and any(
                (p.step, e.new_text.strip().split(":")[0].strip("'\"")) in renamed_keys
                for e in fx[0].edits):
            out.add(i)
        elif p.step in renaming and (p.code == "SM205" or (p.code == "SM204" and not unsafe)):
            out.add(i)  # the rename (when allowed) also gives the parameter its input
    return out


def _one_round(snapshot: WorkspaceSnapshot, path: str, text: str, unsafe: bool = False,
               applied: list | None = None) -> str:
    chosen: list[TextEdit] = []
    taken: list[tuple] = []
    seen: set[tuple] = set()
    picked = []
    offered = [(p, fixes_for(snapshot, path, p)) for p in diagnostics(snapshot, path)]
    waiting = deferred(offered, unsafe=unsafe)
    python = not is_manifest_path(path)
    for i, (problem, fixes) in enumerate(offered):
        if not fixes or not (unsafe or fixes[0].safe) or i in waiting:
            continue
        edits = fixes[0].edits
        if edits in seen:  # SM205: one fix adding every input, on each parameter's problem
            continue
        ranges = [_range(e) for e in edits]
        if any(_overlaps(r, t) for r in ranges for t in taken):
            continue  # overlaps one already chosen: the next round
        if python and chosen and not _together(text, [*chosen, *edits]):
            continue  # safe alone, not with the others (two imports binding one name)
        seen.add(edits)
        chosen.extend(edits)
        taken.extend(ranges)
        picked.append(fixes[0])
    try:
        new = apply_edits(text, chosen) if chosen else text
    except ValueError:  # columns past a line end made two ranges meet: nothing this round
        return text
    if applied is not None:
        applied.extend(picked)
    return new


def _together(text: str, edits: list[TextEdit]) -> bool:
    try:
        return keeps_meaning(text, apply_edits(text, edits))
    except ValueError:
        return False


def hunks(old: str, new: str) -> tuple[TextEdit, ...]:
    """Minimal whole-line edits turning `old` into `new`."""
    a, b = split_lines(old), split_lines(new)
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            out.append(TextEdit(Span(i1 + 1, 0, i2 + 1, 0), "".join(b[j1:j2])))
    return tuple(out)


def fix_text(snapshot: WorkspaceSnapshot, path: str, *, unsafe: bool = False):
    """(fixed text, the fixes applied) for `path`: the safe fixes, or with `unsafe` also the
    guesses (did-you-mean). Fixes that widen what a step may reach ("declare this effect") are
    never among them: they are offered one by one in the editor only. None when unreadable."""
    original = snapshot.read_text(path)
    if original is None:
        return None
    text, snap, applied = original, snapshot, []
    for _ in range(MAX_ROUNDS):
        new = _one_round(snap, path, text, unsafe, applied)
        if new == text:
            break
        text, snap = new, _with_text(snapshot, path, new)
    return text, applied


def fix_all(snapshot: WorkspaceSnapshot, path: str) -> CodeAction | None:
    """The fix-all action for `path` on the snapshot's text, or None when nothing is safe."""
    original = snapshot.read_text(path)
    fixed = fix_text(snapshot, path)
    if fixed is None:
        return None
    text = fixed[0]
    if text == original:
        return None
    return CodeAction("Fix all stepsmith problems that have a safe fix",
                      {path: hunks(original, text)}, FIX_ALL)
