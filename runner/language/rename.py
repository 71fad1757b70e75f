"""Rename a workflow name everywhere it is written (prepareRename + rename), over one snapshot.

Kinds and scopes are navigation_names': a step id (its `id`, every `steps.<id>.output` of the
folder's manifests, and the `fixtures/<id>/` folder), a step function (its `def` and every
`code: <file>:<fn>`), a source / connection alias / effect name (declaration, manifest uses and
the step files' `connections["alias"]` / `effects.emit("name", ...)`). A new name is checked
against the grammar (runner/model/grammar) and against the names already taken in the scope;
a refusal is a RenameError carrying the sentence the editor shows.
"""

from __future__ import annotations

import keyword
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from stepsmith.runner.fixes import TextEdit
from stepsmith.runner.model import grammar
from stepsmith.runner.problems import Span
from stepsmith.runner.safeio import contained
from stepsmith.runner.workspace.snapshot import WorkspaceSnapshot

from .navigation_names import Name, Names

_PARAM_RE = re.compile(grammar.PARAM_PATTERN)
_SECTION = {"source": "sources", "connection": "connections", "effect": "effects"}
_WHAT = {"step": "step id", "source": "source", "connection": "connection alias",
         "effect": "effect", "function": "step function"}


class RenameError(Exception):
    """The rename is refused; `str(exc)` says why, for the user."""


@dataclass(frozen=True)
class FileRename:
    old: str
    new: str


@dataclass(frozen=True)
class RenamePlan:
    name: Name
    new_name: str
    edits: dict[str, tuple[TextEdit, ...]] = field(default_factory=dict)  # path -> edits
    renames: tuple[FileRename, ...] = ()  # applied after the edits
    notes: tuple[str, ...] = ()  # what the plan could not do (the editor shows them)
    # fixtures="files" only: the folder to create before the client applies `renames` (one per
    # fixture file), and the emptied old folder it deletes after them
    make_folder: str | None = None
    deletes: tuple[str, ...] = ()


def prepare_rename(snapshot: WorkspaceSnapshot, path: str, line: int,
                   column: int) -> tuple[Span, str] | None:
    """The span of the renamable name at the cursor and its current text, or None."""
    found = Names(snapshot).at(path, line, column)
    if found is None or not found[0].scope:
        return None
    return found[1], found[0].name


Fixtures = Literal["folder", "files", "none"]


def rename(snapshot: WorkspaceSnapshot, path: str, line: int, column: int, new_name: str, *,
           fixtures: Fixtures = "folder") -> RenamePlan:
    """Every edit (and the fixture-folder move) that renames the name at the cursor.
    `fixtures`: how the client can move `fixtures/<id>/` - "folder" (one RenameFile of the
    folder), "files" (a client that renames files but not folders, e.g. Neovim < 0.9: one
    RenameFile per fixture file into `make_folder`, created by the caller with
    `make_target_folder`, then a DeleteFile of the emptied folder), "none" (the plan says so)."""
    names = Names(snapshot)
    found = names.at(path, line, column)
    if found is None or not found[0].scope:
        raise RenameError("Nothing to rename here: put the cursor on a step id, a step "
                          "function, a source, a connection alias or an effect name.")
    name = found[0]
    if new_name == name.name:
        return RenamePlan(name, new_name)
    _check_new(names, name, new_name)
    edits: dict[str, list[TextEdit]] = {}
    for occ in names.occurrences(name):
        edits.setdefault(occ.location.path, []).append(TextEdit(occ.location.span, new_name))
    base = RenamePlan(name, new_name, {p: tuple(e) for p, e in sorted(edits.items())})
    return _fixture_folder(base, fixtures)


def make_target_folder(plan: RenamePlan) -> None:
    """Create `plan.make_folder` (and nothing through a symlink: runner/safeio)."""
    if plan.make_folder is None:
        return

    folder = os.path.dirname(os.path.dirname(plan.make_folder))  # the workflow folder
    contained(Path(folder), Path(plan.make_folder) / "_", create_dirs=True)


# ------------------------------------------------------------------ refusals


def _check_new(names: Names, name: Name, new: str) -> None:
    what = _WHAT[name.kind]
    if name.kind == "step":
        if not grammar.is_step_id(new):
            raise RenameError(f"'{new}' is not a valid {what}: {grammar.SLUG_RULE}.")
        folder = name.scope[0]
        for m in names.manifests_in(folder):
            if any(s.id == new for s in names.snapshot.steps_of(m)):
                raise RenameError(f"'{new}' is already a step of {os.path.basename(m)}.")
        if os.path.lexists(os.path.join(folder, grammar.FIXTURES_DIR, new)):
            raise RenameError(f"'{new}' is taken: {grammar.FIXTURES_DIR}/{new}/ already exists.")
    elif name.kind == "function":
        if not (_PARAM_RE.fullmatch(new) and not keyword.iskeyword(new)) \
                or new.startswith("__"):
            raise RenameError(f"'{new}' is not a valid {what}: an ASCII Python identifier, "
                              "not a keyword, not starting with '__'.")
        if any(f.name == new for f in names.snapshot.functions(name.scope[0])):
            raise RenameError(f"'{new}' is already a function of "
                              f"{os.path.basename(name.scope[0])}.")
    else:
        if not grammar.is_name(new):
            raise RenameError(f"'{new}' is not a valid {what}: {grammar.NAME_RULE}.")
        section = _SECTION[name.kind]
        for m in name.scope:
            if any(w.kind == name.kind and w.declaration and w.name == new
                   for w in names.written(m)):
                raise RenameError(f"'{new}' is already declared under `{section}` in "
                                  f"{os.path.basename(m)}.")


def _fixture_folder(plan: RenamePlan, how: Fixtures) -> RenamePlan:
    name, new = plan.name, plan.new_name
    if name.kind != "step":
        return plan
    fixtures = os.path.join(name.scope[0], grammar.FIXTURES_DIR)
    old_dir, new_dir = os.path.join(fixtures, name.name), os.path.join(fixtures, new)
    rel_old, rel_new = f"{grammar.FIXTURES_DIR}/{name.name}/", f"{grammar.FIXTURES_DIR}/{new}/"
    if os.path.islink(old_dir) or os.path.islink(fixtures):
        # the runner never writes through a symlinked folder (runner/safeio); nor do we
        return replace(plan, notes=(f"{rel_old} is a symbolic link: it was not renamed.",))
    if not os.path.isdir(old_dir):
        return plan
    manual = ((f"This editor cannot rename folders: rename {rel_old} to {rel_new} yourself, "
              "or its fixtures no longer belong to the step."),)
    if how == "folder":
        return replace(plan, renames=(FileRename(old_dir, new_dir),))
    if how == "files":
        try:
            entries = sorted(os.scandir(old_dir), key=lambda e: e.name)
        except OSError:
            return replace(plan, notes=manual)
        if all(e.is_file(follow_symlinks=False) for e in entries):
            return replace(plan, make_folder=new_dir, deletes=(old_dir,), renames=tuple(
                FileRename(e.path, os.path.join(new_dir, e.name)) for e in entries))
    return replace(plan, notes=manual)
