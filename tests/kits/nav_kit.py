"""A real workflow folder on disk (tests/manifest's BASE: two steps, a connection, sources, an
effect), an optional open buffer with a `|` cursor, and a WorkspaceSnapshot over both."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cursor_kit import cursor
from manifest_kit import BASE, BILLS_PY, MATCH_PY
from stepsmith.runner.lines import split_lines
from stepsmith.runner.workspace.diagnostics import check_manifest
from stepsmith.runner.workspace.index import WorkspaceIndex, norm
from stepsmith.runner.workspace.snapshot import Buffer, WorkspaceSnapshot

BILLS_CONN_PY = BILLS_PY.replace(
    "    for m in matches:\n",
    "    token = connections[\"xero\"]\n    other = connections.get('xero')\n    for m in matches:\n")
assert BILLS_CONN_PY != BILLS_PY
FILES = {"workflow.yaml": BASE, "steps/match.py": MATCH_PY, "steps/bills.py": BILLS_CONN_PY}


@dataclass
class At:
    snapshot: WorkspaceSnapshot
    root: Path
    path: str  # the file holding the cursor
    line: int
    column: int

    def p(self, rel: str) -> str:
        return norm(self.root / rel)


def snapshot_of(root: Path, buffers: dict[str, str] | None = None) -> WorkspaceSnapshot:
    bufs = {norm(root / rel): Buffer(t, 1, tuple(split_lines(t)))
            for rel, t in (buffers or {}).items()}
    manifests = sorted(norm(p) for p in root.rglob("*workflow.yaml"))
    ix = WorkspaceIndex().with_folders([str(root)]).with_manifests(manifests)
    for m in manifests:
        ix, _ = ix.with_check(m, check_manifest(WorkspaceSnapshot.of(ix, bufs), m), 1)
    return WorkspaceSnapshot.of(ix, bufs)


def workspace(root: Path, marked_rel: str, marked: str, files: dict[str, str] | None = None,
              open_marked: bool = True) -> At:
    """Write `files` (default FILES) under root; `marked` (with its `|`) is the text of
    `marked_rel`, open in a buffer (or written to disk when not `open_marked`)."""
    text, line, col = cursor(marked)
    for rel, t in {**(files or FILES), **({} if open_marked else {marked_rel: text})}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(t)
    if open_marked and not (root / marked_rel).exists():
        (root / marked_rel).parent.mkdir(parents=True, exist_ok=True)
        (root / marked_rel).write_text(text)
    snap = snapshot_of(root, {marked_rel: text} if open_marked else None)
    return At(snap, root, norm(root / marked_rel), line, col)
