"""The workspace index: which workflows exist and what each one's last GOOD check said.

Immutable: every change returns a new `WorkspaceIndex` (the language server swaps its current
one on the event loop; snapshots taken before keep theirs). A manifest broken mid-edit keeps
the step files, uses and Python version of its last check that produced a workflow, so its
step files keep their context (no false SS105 while the user types).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from stepsmith.runner.model.refs import CodeRef
from stepsmith.runner.problems import Problem

DEFAULT_PYTHON = "3.11"
_EMPTY: Mapping = MappingProxyType({})


def norm(path: str | os.PathLike) -> str:
    """The one spelling of a path in the index: absolute, normalised."""
    return os.path.normpath(os.path.abspath(os.fspath(path)))


def inside(path: str | None, folder: str) -> bool:
    if not path:
        return False
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class ManifestEntry:
    """One known manifest. `check` is the last check (good or broken); the other fields come
    from the last check that produced a workflow."""

    path: str
    check: Any = None  # manifest.WorkflowCheck
    version: int | None = None  # buffer version the check read (None: disk)
    step_files: Mapping[str, tuple] = field(default_factory=lambda: _EMPTY)  # norm path -> (StepUse, ...)
    python: str = DEFAULT_PYTHON
    referenced: frozenset[str] = frozenset()  # every code file the steps name, existing or not
    crossfile: Mapping[str, tuple[Problem, ...]] = field(default_factory=lambda: _EMPTY)  # step path -> non-SS problems
    checked: bool = False  # a check ran (even one that failed)
    interpreter: Any = None  # pythons.Interpreter the pin names (None: not installed)

    @property
    def folder(self) -> str:
        return os.path.dirname(self.path)

    @property
    def doc(self):
        """The parsed manifest of the last check, or None."""
        return self.check.manifest if self.check is not None else None

    def names(self, step_path: str) -> bool:
        return step_path in self.step_files or step_path in self.referenced

    def python_report(self):
        """The pin and the interpreter its last check found (pythons.report.WorkflowPython);
        None before a check."""
        from stepsmith.runner.pythons.report import WorkflowPython

        if self.check is None:
            return None
        data = getattr(self.check.manifest.root, "data", None)
        pin = data.get("python") if isinstance(data, dict) else None
        if not isinstance(pin, str):
            return WorkflowPython(Path(self.path), None)
        problem = next((p.message for ps in self.check.problems.values() for p in ps
                        if p.code == "SM501"), None)
        interp = getattr(self.check, "interpreter", None)
        return WorkflowPython(Path(self.path), pin, interp, None if interp else problem)


def _python_of(check: Any) -> str:
    data = getattr(check.manifest.root, "data", None)
    if isinstance(data, dict) and isinstance(data.get("python"), str):
        return data["python"]
    return DEFAULT_PYTHON


def _referenced(check: Any, folder: str) -> frozenset[str]:
    wf = check.manifest.workflow
    return frozenset(norm(os.path.join(folder, s.code_ref.path))
                     for s in (wf.steps if wf is not None else ()))


def entry_from_check(prev: ManifestEntry, check: Any, version: int | None) -> ManifestEntry:
    """The entry after `check` (None: the check failed)."""
    if check is None:
        return dataclasses.replace(prev, check=None, version=version, checked=True)
    if check.manifest.workflow is None and prev.checked:
        # broken mid-edit: keep the last good context
        return dataclasses.replace(prev, check=check, version=version, checked=True)
    files = {norm(p): tuple(u) for p, u in check.step_files.items()}
    cross = {}
    for p, probs in check.problems.items():
        key = norm(p)
        if key != prev.path:
            extra = tuple(q for q in probs if not q.code.startswith("SS"))
            if extra:
                cross[key] = extra
    return ManifestEntry(prev.path, check, version, MappingProxyType(files), _python_of(check),
                         _referenced(check, prev.folder), MappingProxyType(cross), True,
                         getattr(check, "interpreter", None))


@dataclass(frozen=True)
class WorkspaceIndex:
    folders: tuple[str, ...] = ()
    manifests: Mapping[str, ManifestEntry] = field(default_factory=lambda: _EMPTY)

    # ------------------------------------------------------------------ changes (new index)
    def with_folders(self, folders: Iterable[str]) -> WorkspaceIndex:
        return dataclasses.replace(self, folders=tuple(norm(f) for f in folders if f))

    def with_manifests(self, paths: Iterable[str]) -> WorkspaceIndex:
        new = {p: ManifestEntry(p) for p in map(norm, paths) if p not in self.manifests}
        if not new:
            return self
        return self._replace_manifests({**self.manifests, **new})

    def without(self, paths: Iterable[str]) -> WorkspaceIndex:
        drop = set(paths) & set(self.manifests)
        if not drop:
            return self
        return self._replace_manifests({k: v for k, v in self.manifests.items() if k not in drop})

    def with_check(self, path: str, check: Any, version: int | None) -> tuple[WorkspaceIndex, set[str]]:
        """Record a check; returns the new index and the step files whose context changed."""
        prev = self.manifests.get(path) or ManifestEntry(path)
        entry = entry_from_check(prev, check, version)
        before = {p: (u, prev.python, prev.interpreter) for p, u in prev.step_files.items()}
        after = {p: (u, entry.python, entry.interpreter) for p, u in entry.step_files.items()}
        changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
        changed |= {p for p in set(prev.crossfile) | set(entry.crossfile)
                    if prev.crossfile.get(p) != entry.crossfile.get(p)}
        return self._replace_manifests({**self.manifests, path: entry}), changed

    def _replace_manifests(self, manifests: dict) -> WorkspaceIndex:
        return dataclasses.replace(self, manifests=MappingProxyType(manifests))

    # ------------------------------------------------------------------ questions
    def get(self, path: str) -> ManifestEntry | None:
        return self.manifests.get(path)

    def under(self, folder: str) -> tuple[list[str], list[str]]:
        """(manifests inside `folder`, manifests outside it naming a step file inside it): what
        a deleted folder takes along, and what must be checked again."""
        prefix = folder.rstrip(os.sep) + os.sep
        inside = [k for k in sorted(self.manifests) if k.startswith(prefix)]
        naming = [k for k in sorted(self.manifests) if not k.startswith(prefix)
                  and any(f.startswith(prefix) for f in self.manifests[k].step_files)]
        return inside, naming

    def manifests_using(self, step_path: str | None) -> list[ManifestEntry]:
        """Manifests naming `step_path` in a `code:`, also while the file does not exist yet
        (its creation must re-check them: SM201 goes away)."""
        if not step_path:
            return []
        return [self.manifests[k] for k in sorted(self.manifests) if self.manifests[k].names(step_path)]

    def step_context(self, step_path: str | None) -> tuple[str, tuple]:
        """(python, uses) for validating a step file: the uses of every manifest naming it."""
        python: str | None = None
        uses: list = []
        if not step_path:
            return DEFAULT_PYTHON, ()
        for m in self.manifests_using(step_path):
            u = m.step_files.get(step_path)
            if u is None:
                continue
            python = python or m.python
            uses.extend(u)
        return python or DEFAULT_PYTHON, tuple(uses)

    def step_interpreter(self, step_path: str | None):
        """The interpreter a step file is checked with: that of the first manifest naming it
        (as `step_context`'s python); None when its pin has none here or no manifest names it."""
        for m in self.manifests_using(step_path):
            if step_path and m.step_files.get(step_path) is not None:
                return m.interpreter
        return None

    def crossfile(self, step_path: str | None) -> list[Problem]:
        """Problems the workflow checks found in a step file that are not the validator's."""
        out: list[Problem] = []
        for key in sorted(self.manifests):
            out.extend(self.manifests[key].crossfile.get(step_path or "", ()))
        return out

    def nearest_first(self, path: str | None) -> list[str]:
        """Known manifests, those of the folders at or above `path` first (its workflow)."""
        keys = sorted(self.manifests)
        if not path:
            return keys
        return sorted(keys, key=lambda k: 0 if inside(path, os.path.dirname(k)) else 1)

    def manifests_for(self, path: str | None) -> list[ManifestEntry]:
        """Manifests a path belongs to: itself, the ones naming it, or those in/under a folder."""
        keys = sorted(self.manifests)
        if path is None:
            return [self.manifests[k] for k in keys]
        if path in self.manifests:
            return [self.manifests[path]]
        using = [self.manifests[k] for k in keys if path in self.manifests[k].step_files]
        if using:
            return using
        return [self.manifests[k] for k in keys
                if inside(path, os.path.dirname(k)) or k.startswith(path + os.sep)]

    def in_folders(self, path: str) -> bool:
        return any(inside(path, f) for f in self.folders)

    def all_checked(self, attempted: Iterable[str] = ()) -> bool:
        done = set(attempted)
        return all(m.checked or k in done for k, m in self.manifests.items())


def code_target(manifest_path: str, ref: CodeRef) -> str:
    """The normalised path of the file a `code:` reference names."""
    return norm(os.path.join(os.path.dirname(manifest_path), ref.path))
