"""Which workflows exist, which step files they use, and how (python, uses).

Manifests come from the workspace folders (`find_manifests`) plus any manifest the client opens.
The results of the last whole-workflow check of each manifest are kept here; the analyzer reads
them to configure step-file validation and writes them after each check. Open buffers win over
disk through `read_text`.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any

from pygls.uris import from_fs_path, to_fs_path


def norm(path: str | os.PathLike) -> str:
    return os.path.normpath(os.path.abspath(os.fspath(path)))


def uri_to_path(uri: str) -> str | None:
    try:
        p = to_fs_path(uri)
    except Exception:
        return None
    return norm(p) if p else None


def path_to_uri(path: str | os.PathLike) -> str:
    return from_fs_path(os.fspath(path)) or ""


def is_manifest_path(path: str | None) -> bool:
    if not path:
        return False
    name = os.path.basename(path)
    return name == "workflow.yaml" or (name.endswith(".workflow.yaml") and len(name) > 14)


@dataclass
class ManifestState:
    path: str
    check: Any = None  # WorkflowCheck of the last check
    version: int | None = None  # buffer version the check used (None = disk)
    step_files: dict[str, tuple] = field(default_factory=dict)  # norm path -> tuple(StepUse)
    python: str = "3.11"
    error: str | None = None
    checked: bool = False
    referenced: frozenset = frozenset()  # every code file the steps name, existing or not


def _code_paths(check: Any, folder: str) -> frozenset:
    wf = check.manifest.workflow
    out = set()
    for step in (wf.steps if wf is not None else ()):
        code = step.code
        rel = getattr(code, "path", None) or str(code).rpartition(":")[0]
        if rel:
            out.add(norm(os.path.join(folder, str(rel))))
    return frozenset(out)


class WorkspaceModel:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.folders: list[str] = []
        self.manifests: dict[str, ManifestState] = {}

    # ------------------------------------------------------------------ discovery
    def set_folders(self, folders: list[str]) -> None:
        with self.lock:
            self.folders = [norm(f) for f in folders if f]

    def discover(self) -> list[str]:
        """Find manifests in the folders; returns newly found paths."""
        from stepsmith.runner.manifest import find_manifests

        new = []
        found = find_manifests(self.folders) if self.folders else []
        with self.lock:
            for p in found:
                key = norm(p)
                if key not in self.manifests:
                    self.manifests[key] = ManifestState(key)
                    new.append(key)
        return new

    def add_manifest(self, path: str) -> bool:
        with self.lock:
            if path in self.manifests:
                return False
            self.manifests[path] = ManifestState(path)
            return True

    def remove_manifest(self, path: str) -> None:
        with self.lock:
            self.manifests.pop(path, None)

    # ------------------------------------------------------------------ queries
    def manifests_using(self, step_path: str) -> list[ManifestState]:
        """Manifests naming `step_path` in a `code:`, also while the file does not exist yet
        (its creation must re-check them: SM201 goes away)."""
        with self.lock:
            return [m for m in self.manifests.values()
                    if step_path in m.step_files or step_path in m.referenced]

    def adopt_nearest(self, path: str) -> list[str]:
        """A step file no known manifest names (no folder open, or the root is `steps/`):
        adopt the manifests of the nearest folder above it. Returns the new ones."""
        from stepsmith.runner.workspace.discovery import nearest_manifests

        if self.manifests_using(path):
            return []
        new = []
        for m in nearest_manifests(path):
            key = norm(m)
            if self.add_manifest(key):
                new.append(key)
        return new

    def nearest_first(self, path: str | None) -> list[str]:
        """Known manifests, those of the folders at or above `path` first (its workflow)."""
        with self.lock:
            keys = sorted(self.manifests)
        if not path:
            return keys
        def rank(key: str) -> int:
            folder = os.path.dirname(key)
            return 0 if path.startswith(folder + os.sep) else 1
        return sorted(keys, key=rank)

    def step_context(self, step_path: str | None) -> tuple[str, tuple]:
        """(python, uses) for validating a step file: uses of every manifest naming it."""
        if not step_path:
            return "3.11", ()
        python = None
        uses: list = []
        with self.lock:
            for key in sorted(self.manifests):
                m = self.manifests[key]
                u = m.step_files.get(step_path)
                if u is None:
                    continue
                if python is None:
                    python = m.python
                uses.extend(u)
        return python or "3.11", tuple(uses)

    def manifests_for(self, path: str | None) -> list[ManifestState]:
        """Manifests a file belongs to: itself, the ones naming it, or those under a folder."""
        with self.lock:
            if path is None:
                return [self.manifests[k] for k in sorted(self.manifests)]
            if path in self.manifests:
                return [self.manifests[path]]
            using = [m for m in self.manifests.values() if path in m.step_files]
            if using:
                return sorted(using, key=lambda m: m.path)
            out = []
            for key in sorted(self.manifests):
                folder = os.path.dirname(key)
                if path == folder or path.startswith(folder + os.sep) or key.startswith(path + os.sep):
                    out.append(self.manifests[key])
            return out

    def record_check(self, path: str, check: Any, version: int | None) -> tuple[set, set]:
        """Store a check; returns (step files whose context changed, all step files)."""
        step_files: dict[str, tuple] = {}
        python = "3.11"
        if check is not None:
            for p, uses in check.step_files.items():
                step_files[norm(p)] = tuple(uses)
            root = check.manifest.root
            data = getattr(root, "data", None)
            if isinstance(data, dict) and isinstance(data.get("python"), str):
                python = data["python"]
        referenced = _code_paths(check, os.path.dirname(path)) if check is not None else frozenset()
        with self.lock:
            m = self.manifests.get(path)
            if m is None:
                m = self.manifests[path] = ManifestState(path)
            before = {p: (u, m.python) for p, u in m.step_files.items()}
            if check is not None and check.manifest.workflow is None and m.checked:
                # broken mid-edit: its step files keep the last good context (no false SS105)
                step_files, python, referenced = m.step_files, m.python, m.referenced
            m.check, m.version, m.step_files, m.python = check, version, step_files, python
            m.referenced = referenced
            m.checked = True
            after = {p: (u, python) for p, u in step_files.items()}
        changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
        return changed, set(after)
