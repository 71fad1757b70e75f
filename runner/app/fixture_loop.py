"""The fixture loop's use case: find pending fixture changes, accept or reject them.

``stepsmith review`` / ``stepsmith test --update`` and the language server's
``stepsmith.pending.*`` commands call these functions; each decision is a typed
:class:`Decision`, rendered by the edge that asked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from stepsmith.runner.app import pending
from stepsmith.runner.app.pending import Conflict, PendingChange, PendingProblem
from stepsmith.runner.app.selection import at_or_under, within
from stepsmith.runner.app.workflow import load_workflow
from stepsmith.runner.display import display_path
from stepsmith.runner.errors import InvokeError, UsageError
from stepsmith.runner.fixtures.keywords import Expression
from stepsmith.runner.workspace.discovery import discover

if TYPE_CHECKING:
    from stepsmith.runner.app.workflow import LoadedWorkflow


@dataclass(frozen=True)
class Item:
    """One pending file of one workflow folder; `change` or `problem` is set."""

    id: str  # "<workflow>::<step>::<case>"
    workflow: str  # shown name of the workflow folder
    workflow_dir: Path
    change: PendingChange | None = None
    problem: PendingProblem | None = None

    @property
    def entry(self) -> PendingChange | PendingProblem:
        """The pending file: its change, else its problem."""
        if self.change is not None:
            return self.change
        if self.problem is None:
            raise ValueError(f"{self.id}: an item holds a change or a problem")
        return self.problem

    def to_json(self) -> dict:
        d: dict = {"id": self.id, "workflow": self.workflow}
        c = self.entry
        if isinstance(c, PendingChange):
            d.update(step=c.step_id, case=c.case, fixture=str(c.fixture_path),
                     pending=str(c.path), source=c.source, created_at=c.created_at,
                     new=c.is_new,  # then `document` is what accepting creates
                     differences=[x.to_json() for x in c.differences()],
                     stale=c.stale())  # why accepting it will be refused, or None
            if c.is_new:
                d["document"] = c.new
        else:
            d.update(problem=c.message, pending=str(c.path))
        return d


@dataclass(frozen=True)
class Decision:
    item: Item
    outcome: str  # accepted | already | rejected | skipped | refused
    message: str = ""

    def to_json(self) -> dict:
        return {"id": self.item.id, "outcome": self.outcome, "message": self.message}


def keyword_filter(expr: str | None):
    """pytest's -k language over the item id (a bare word: case-insensitive substring)."""
    if not expr:
        return lambda _id: True

    try:
        compiled = Expression.compile(expr)
    except SyntaxError as exc:
        raise UsageError(f"-k {expr!r}: invalid expression at column {exc.offset or 1}: "
                         f"{exc.msg}") from None

    def keep(item_id: str) -> bool:
        low = item_id.lower()
        return compiled.evaluate(lambda name: name.lower() in low)

    return keep


@dataclass(frozen=True)
class WorkflowFolder:
    shown: str  # the folder's display name (as in node ids)
    dir: Path
    manifests: tuple[Path, ...]
    narrow: tuple[Path, ...] | None  # paths inside the folder the changes are limited to


def workflow_dirs(paths: Iterable[str | Path]) -> list[WorkflowFolder]:
    """Every workflow folder reached from `paths` (the one discovery: below a folder, else
    upward), each once. A path inside a workflow folder (a fixture, a pending file, a step
    file, `steps/`) narrows that folder's changes to the ones it covers; None: all of them."""

    out: dict[Path, list] = {}
    for p in paths:
        for f in discover([p]):
            d = f.manifest.resolve().parent
            entry = out.setdefault(d, [[], []])
            entry[0].append(f.manifest)
            if f.narrow is None:
                entry[1] = None
            elif entry[1] is not None:
                entry[1].append(f.narrow)
    folders = []
    for d, (manifests, narrow) in out.items():
        shown = display_path(d)
        here = Path.cwd().resolve()
        if shown == "." or d in here.parents:  # run from inside it: its name, as in tests
            shown = d.name
        folders.append(WorkflowFolder(shown, d, tuple(dict.fromkeys(manifests)),
                                      tuple(narrow) if narrow else None))
    return folders


def _covered(folder: WorkflowFolder, loaded: list[LoadedWorkflow], step_id: str, files: list[Path]) -> bool:
    """Does the folder's narrowing cover this change: one of its files, or the step's code?"""
    if folder.narrow is None:
        return True

    if any(at_or_under(f, n) for f in files for n in folder.narrow):
        return True
    if not loaded:  # once per folder, only when a step file or folder narrows it
        for m in folder.manifests:
            try:
                loaded.append(load_workflow(m))
            except InvokeError:
                continue
    return any(within(lw, step_id, n) for lw in loaded for n in folder.narrow)


def find(paths: Iterable[str | Path], keyword: str | None = None) -> list[Item]:
    keep = keyword_filter(keyword)
    items = []
    for folder in workflow_dirs(paths):
        shown, d = folder.shown, folder.dir
        loaded: list[LoadedWorkflow] = []
        for entry in pending.scan(d):
            if isinstance(entry, PendingChange):
                item = Item(f"{shown}::{entry.step_id}::{entry.case}", shown, d, change=entry)
                where, step_id = [entry.path, entry.fixture_path], entry.step_id
            else:
                rel = entry.path.relative_to(d) if entry.path.is_relative_to(d) else entry.path
                item = Item(f"{shown}::{rel}", shown, d, problem=entry)
                where, step_id = [entry.path], ""
            if keep(item.id) and _covered(folder, loaded, step_id, where):
                items.append(item)
    return items


def waiting(folders: Iterable[tuple[str, Path]], written: Iterable[PendingChange] = ()
            ) -> list[Item]:
    """The pending changes of these workflow folders ((shown name, folder), each once) that
    a run did not write itself: proposals and changes left for a person to review."""
    mine = {c.path for c in written}
    out, seen = [], set()
    for shown, d in folders:
        if d in seen:
            continue
        seen.add(d)
        for entry in pending.scan(d):
            if isinstance(entry, PendingChange) and entry.path not in mine:
                out.append(Item(f"{shown}::{entry.step_id}::{entry.case}", shown, d,
                                change=entry))
    return out


def waiting_sentence(items: list[Item], where: Iterable[str]) -> str:
    """"3 proposed fixtures wait for review: stepsmith review wf": `where` are the folders as
    the edge shows them (the command a person runs)."""
    changes = [i.change for i in items if i.change is not None]
    if len(changes) != len(items):
        raise ValueError("only pending changes wait for review")
    new = sum(c.is_new for c in changes)
    changed = len(items) - new
    parts = []
    if new:
        parts.append(f"{new} proposed fixture{'s' if new != 1 else ''}")
    if changed:
        parts.append(f"{changed} pending change{'s' if changed != 1 else ''}")
    verb = "waits" if len(items) == 1 else "wait"
    return f"{' and '.join(parts)} {verb} for review: stepsmith review {' '.join(where)}"


def accept(item: Item) -> Decision:
    if item.change is None:
        return Decision(item, "refused", f"{item.problem}")
    try:
        outcome = pending.accept(item.change)
    except Conflict as exc:
        return Decision(item, "refused", str(exc))
    except OSError as exc:  # read-only folder, symlink: nothing written, pending kept
        return Decision(item, "refused", f"cannot write {item.change.fixture_path}: "
                        f"{exc.strerror or exc}; nothing written, the pending change is kept")
    return Decision(item, outcome, "" if outcome == "accepted"
                    else "the fixture already holds this result")


def reject(item: Item) -> Decision:
    try:
        pending.reject(item.entry, item.workflow_dir)
    except OSError as exc:
        return Decision(item, "refused", f"cannot remove {item.entry.path}: "
                        f"{exc.strerror or exc}")
    return Decision(item, "rejected")


def skip(item: Item) -> Decision:
    return Decision(item, "skipped")


def summary(decisions: list[Decision]) -> str:
    n = {k: sum(d.outcome == k for d in decisions)
         for k in ("accepted", "already", "rejected", "skipped", "refused")}
    text = f"accepted {n['accepted'] + n['already']}, rejected {n['rejected']}, " \
           f"skipped {n['skipped']}"
    return text + (f", refused {n['refused']}" if n["refused"] else "")
