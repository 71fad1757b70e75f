"""The server's handle on the workspace index (runner/workspace/index.py) and URIs.

The index itself is immutable; this holder swaps the current one under a lock (the analysis
worker records checks, the event loop adds folders and manifests). Requests read the index
through a WorkspaceSnapshot (`StepsmithServer.workspace_snapshot`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from pygls.uris import from_fs_path, to_fs_path
from stepsmith.runner.workspace.diagnostics import is_manifest_path
from stepsmith.runner.workspace.index import ManifestEntry, WorkspaceIndex, norm

__all__ = ["WorkspaceModel", "is_manifest_path", "norm", "path_to_uri", "uri_to_path"]


def uri_to_path(uri: str) -> str | None:
    try:
        p = to_fs_path(uri)
    except Exception:
        return None
    return norm(p) if p else None


def path_to_uri(path: str | os.PathLike) -> str:
    return from_fs_path(os.fspath(path)) or ""


class WorkspaceModel:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.index = WorkspaceIndex()

    def _swap(self, fn: Callable[[WorkspaceIndex], WorkspaceIndex]) -> WorkspaceIndex:
        with self.lock:
            self.index = fn(self.index)
            return self.index

    @property
    def folders(self) -> tuple[str, ...]:
        return self.index.folders

    @property
    def manifests(self):
        return self.index.manifests

    # ------------------------------------------------------------------ discovery
    def set_folders(self, folders: list[str]) -> None:
        self._swap(lambda ix: ix.with_folders(folders))

    def discover(self) -> list[str]:
        """Find manifests in the folders; returns newly found paths."""
        from stepsmith.runner.workspace.discovery import find_manifests

        folders = self.index.folders
        found = [norm(p) for p in find_manifests(folders)] if folders else []
        with self.lock:
            new = [p for p in dict.fromkeys(found) if p not in self.index.manifests]
            self._swap(lambda ix: ix.with_manifests(new))
        return new

    def add_manifest(self, path: str) -> bool:
        with self.lock:
            if path in self.index.manifests:
                return False
            self._swap(lambda ix: ix.with_manifests([path]))
            return True

    def remove_manifest(self, path: str) -> None:
        self._swap(lambda ix: ix.without([path]))

    def adopt_nearest(self, path: str) -> list[str]:
        """A step file no known manifest names (no folder open, or the root is `steps/`):
        adopt the manifests of the nearest folder above it (upward discovery)."""
        from stepsmith.runner.workspace.discovery import nearest_manifests

        if self.index.manifests_using(path):
            return []
        return [key for key in map(norm, nearest_manifests(path)) if self.add_manifest(key)]

    def record_check(self, path: str, check, version: int | None) -> set[str]:
        """Store a check; returns the step files whose context changed. A check of a manifest
        forgotten meanwhile (closed and deleted while it ran) is dropped: recording it would
        bring the entry, and its whole WorkflowCheck, back for good."""
        with self.lock:
            if path not in self.index.manifests:
                return set()
            index, changed = self.index.with_check(path, check, version)
            self.index = index
        return changed

    # ------------------------------------------------------------------ questions
    def under(self, folder: str) -> tuple[list[str], list[str]]:
        return self.index.under(folder)

    def manifests_using(self, step_path: str) -> list[ManifestEntry]:
        return self.index.manifests_using(step_path)

    def nearest_first(self, path: str | None) -> list[str]:
        return self.index.nearest_first(path)

    def manifests_for(self, path: str | None) -> list[ManifestEntry]:
        return self.index.manifests_for(path)
