"""Workspace folders changed; watched files created / changed / deleted."""

from __future__ import annotations

import os

from lsprotocol import types as T
from stepsmith.server.handlers.common import safe
from stepsmith.server.workspace import is_manifest_path, uri_to_path


def register(ls) -> None:
    @ls.feature(T.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @safe
    async def did_change_folders(ls, params: T.DidChangeWorkspaceFoldersParams):
        model = ls.session.model
        folders = set(model.folders)
        folders -= {uri_to_path(f.uri) for f in params.event.removed or []}
        folders |= {uri_to_path(f.uri) for f in params.event.added or []}
        model.set_folders(sorted(p for p in folders if p))
        with model.lock:
            for key in list(model.manifests):
                if not any(key.startswith(f + os.sep) for f in model.folders) \
                        and ls.session.open_uri(key) is None:
                    model.remove_manifest(key)
        ls.scheduler.schedule("discover", "")
        ls.check_ready()

    @ls.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @safe
    def did_change_watched(ls, params: T.DidChangeWatchedFilesParams):
        session = ls.session
        for ch in params.changes:
            path = uri_to_path(ch.uri)
            if not path:
                continue
            if ch.type == T.FileChangeType.Deleted and not is_manifest_path(path):
                forget_folder(ls, path)
            mutants = getattr(ls, "mutant_runs", None)
            if mutants is not None:  # a fixture recorded: run again; a step file gone: forget
                mutants.changed(path, deleted=ch.type == T.FileChangeType.Deleted)
            if is_manifest_path(path):
                if ch.type == T.FileChangeType.Deleted and session.open_uri(path) is None:
                    ls.forget_manifest(path)
                    continue
                session.model.add_manifest(path)
                ls.scheduler.schedule("manifest", path)
            else:
                for m in session.model.manifests_using(path):
                    ls.scheduler.schedule("manifest", m.path)


def forget_folder(ls, path: str) -> None:
    """A deleted path may be a folder, reported as one event without its children."""
    inside, naming = ls.session.model.under(path)
    for key in inside:
        if ls.session.open_uri(key) is None:
            ls.forget_manifest(key)
    for key in naming:
        ls.scheduler.schedule("manifest", key)
