"""`stepsmith check --fix`: the fixes the editor offers, applied to files.

The same edits the rules compute (runner/fixes.py) through the same fix-all rounds as the
editor's `source.fixAll.stepsmith` (runner/language/fixall.py), over a workspace snapshot built
from the disk. Safe fixes by default; `unsafe` adds the guesses (did-you-mean). A fix that
widens what a step may reach is never applied here. Files are planned first and written only
when asked; a file that changed on disk after it was read is left alone and reported.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from stepsmith.runner import safeio
from stepsmith.runner.language.fixall import fix_text
from stepsmith.runner.lines import split_lines
from stepsmith.runner.model.grammar import is_manifest_name
from stepsmith.runner.workspace.diagnostics import check_manifest
from stepsmith.runner.workspace.discovery import discover
from stepsmith.runner.workspace.index import WorkspaceIndex, norm
from stepsmith.runner.workspace.snapshot import Buffer, WorkspaceSnapshot

MAX_PASSES = 4  # a manifest fix can unlock a step-file fix and back; bounded all the same


@dataclass(frozen=True)
class FileFix:
    path: str  # normalised absolute path
    original: str
    fixed: str
    applied: tuple  # runner.fixes.Fix, in the order applied

    @property
    def changed(self) -> bool:
        return self.fixed != self.original


@dataclass(frozen=True)
class FixOutcome:
    written: tuple[FileFix, ...] = ()
    conflicts: tuple[str, ...] = ()  # files changed on disk since they were read
    refused: tuple[tuple[str, str], ...] = ()  # (path, why) e.g. a symlinked file


def disk_snapshot(manifests: list[str], buffers: dict | None = None):
    buffers = buffers or {}
    ix = WorkspaceIndex().with_manifests(manifests)
    for m in manifests:
        ix, _ = ix.with_check(m, check_manifest(WorkspaceSnapshot.of(ix, buffers), m), None)
    return WorkspaceSnapshot.of(ix, buffers)


def _files(snapshot, manifests: list[str], singles: list[str]) -> list[str]:
    out = list(manifests)
    for m in manifests:
        entry = snapshot.index.get(m)
        out += [p for p in sorted(entry.step_files) if p not in out] if entry else []
    return out + [p for p in singles if p not in out]


def plan(paths: Iterable[str], *, unsafe: bool = False) -> list[FileFix]:
    """Every file under `paths` whose fixes change it: original and fixed text."""

    paths = list(paths)
    manifests = sorted({norm(f.manifest) for f in discover([Path(p) for p in paths])})
    singles = [norm(p) for p in paths if p.endswith(".py") and os.path.isfile(p)
               and not is_manifest_name(os.path.basename(p))]
    buffers: dict = {}
    originals: dict[str, str] = {}
    applied: dict[str, list] = {}
    for _ in range(MAX_PASSES):
        snap = disk_snapshot(manifests, buffers)
        progressed = False
        for f in _files(snap, manifests, singles):
            result = fix_text(snap, f, unsafe=unsafe)
            if result is None:
                continue
            text, fixes = result
            current = snap.read_text(f)
            if text != current:
                originals.setdefault(f, current)
                applied.setdefault(f, []).extend(fixes)
                buffers[f] = Buffer(text, None, tuple(split_lines(text)))
                snap = disk_snapshot(manifests, buffers)
                progressed = True
        if not progressed:
            break
    return [FileFix(f, originals[f], buffers[f].text, tuple(applied[f]))
            for f in originals if buffers[f].text != originals[f]]


def write(fixes: list[FileFix]) -> FixOutcome:
    """Write each fixed file atomically, unless it changed on disk since it was read."""

    written, conflicts, refused = [], [], []
    for fx in fixes:
        root = safeio.workflow_root(fx.path)
        try:
            now = safeio.read_bytes(fx.path, root=root, cap=safeio.STEP_FILE_CAP * 8)
        except OSError as exc:
            refused.append((fx.path, str(exc)))
            continue
        if now.decode("utf-8", "surrogateescape") != fx.original:
            conflicts.append(fx.path)
            continue
        try:
            safeio.write_atomic(fx.path, fx.fixed.encode("utf-8"), root=root)
        except OSError as exc:
            refused.append((fx.path, str(exc)))
            continue
        written.append(fx)
    return FixOutcome(tuple(written), tuple(conflicts), tuple(refused))
