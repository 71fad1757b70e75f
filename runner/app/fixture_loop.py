"""The fixture loop's use case: find pending fixture changes, accept or reject them.

``stepsmith review`` / ``stepsmith test --update`` and the language server's
``stepsmith.pending.*`` commands call these functions; each decision is a typed
:class:`Decision`, rendered by the edge that asked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from stepsmith.runner.fixtures import pending
from stepsmith.runner.fixtures.pending import Conflict, PendingChange, PendingProblem


class SelectionError(Exception):
    """A bad -k expression: exit 2."""


@dataclass(frozen=True)
class Item:
    """One pending file of one workflow folder; `change` or `problem` is set."""

    id: str  # "<workflow>::<step>::<case>"
    workflow: str  # shown name of the workflow folder
    workflow_dir: Path
    change: PendingChange | None = None
    problem: PendingProblem | None = None

    def to_json(self) -> dict:
        d: dict = {"id": self.id, "workflow": self.workflow}
        if self.change is not None:
            c = self.change
            d.update(step=c.step_id, case=c.case, fixture=str(c.fixture_path),
                     pending=str(c.path), source=c.source, created_at=c.created_at,
                     differences=[x.to_json() for x in c.differences()])
        else:
            d.update(problem=self.problem.message, pending=str(self.problem.path))
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
    from _pytest.mark.expression import Expression

    try:
        compiled = Expression.compile(expr)
    except SyntaxError as exc:
        raise SelectionError(f"-k {expr!r}: invalid expression at column {exc.offset or 1}: "
                             f"{exc.msg}") from None

    def keep(item_id: str) -> bool:
        low = item_id.lower()
        return compiled.evaluate(lambda name, **_kw: name.lower() in low)

    return keep


def workflow_dirs(paths: Iterable[str | Path]) -> list[tuple[str, Path, list[Path] | None]]:
    """(shown name, folder, narrowed to) of every workflow folder under `paths`, each once. A
    path inside a workflow folder (a fixture, a pending file, a step's fixtures folder)
    narrows that folder's changes to the ones at or under it; None: all of them."""
    from stepsmith.runner.fixtures.invoke import display_path
    from stepsmith.runner.manifest import find_manifests

    out: dict[Path, list] = {}
    for p in paths:
        p = Path(p)
        if not p.exists():
            continue
        found = find_manifests([p]) if p.is_dir() else []
        narrow = None
        if not found:  # a file or folder inside a workflow folder
            for folder in [p if p.is_dir() else p.parent, *p.resolve().parents]:
                found = [m for m in (find_manifests([folder]) if folder.is_dir() else [])
                         if m.parent.resolve() == folder.resolve()]
                if found:
                    narrow = p.resolve()
                    break
        for m in found:
            d = m.resolve().parent
            shown = display_path(d)
            entry = out.setdefault(d, [d.name if shown == "." else shown, []])
            if narrow is None:
                entry[1] = None
            elif entry[1] is not None:
                entry[1].append(narrow)
    return [(name, d, narrow or None) for d, (name, narrow) in out.items()]


def _within(item_paths: list[Path], narrow: list[Path] | None) -> bool:
    if narrow is None:
        return True
    return any(q == n or n in q.parents for q in item_paths for n in narrow)


def find(paths: Iterable[str | Path], keyword: str | None = None) -> list[Item]:
    keep = keyword_filter(keyword)
    items = []
    for shown, d, narrow in workflow_dirs(paths):
        for entry in pending.scan(d):
            if isinstance(entry, PendingChange):
                item = Item(f"{shown}::{entry.step_id}::{entry.case}", shown, d, change=entry)
                where = [entry.path.resolve(), entry.fixture_path.resolve()]
            else:
                rel = entry.path.relative_to(d) if entry.path.is_relative_to(d) else entry.path
                item = Item(f"{shown}::{rel}", shown, d, problem=entry)
                where = [entry.path.resolve()]
            if keep(item.id) and _within(where, narrow):
                items.append(item)
    return items


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
        pending.reject(item.change or item.problem, item.workflow_dir)
    except OSError as exc:
        return Decision(item, "refused", f"cannot remove {(item.change or item.problem).path}: "
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
