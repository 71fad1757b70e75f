"""The server's state, typed: open documents, the workspace index, settings and what the client
can do. Mutated on the event loop only; `snapshot()` freezes it for a service on any thread.

Nothing here knows pygls's internals; handlers read the session, never the server's fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsprotocol import types as T
from stepsmith.runner.workspace.snapshot import ParseCache, WorkspaceSnapshot
from stepsmith.server.documents import UTF8, UTF16, Document, DocumentStore
from stepsmith.server.settings import Settings
from stepsmith.server.workspace import (
    WorkspaceModel,
    is_manifest_path,
    norm,
    uri_to_path,
)


@dataclass(frozen=True)
class ClientCapabilities:
    """What the client said it supports at `initialize`, resolved once."""

    encoding: str = UTF16
    pull: bool = False  # textDocument.diagnostic: the client pulls, the server does not push
    refresh: bool = False  # workspace/diagnostic/refresh
    configuration: bool = False  # workspace/configuration
    code_lens_refresh: bool = False
    watch_files: bool = False  # dynamic registration of didChangeWatchedFiles
    progress: bool = False  # window/workDoneProgress
    snippets: bool = False  # completionItem.snippetSupport
    document_changes: bool = False  # workspaceEdit.documentChanges
    fixture_moves: str = "none"  # how a rename moves fixtures/<id>/ (fixture_moves below)
    link_tooltips: bool = False  # textDocument.documentLink.tooltipSupport
    inlay_refresh: bool = False  # workspace/inlayHint/refresh

    @classmethod
    def from_lsp(cls, caps: T.ClientCapabilities,
                 info: T.ClientInfo | None = None) -> ClientCapabilities:
        encs = (caps.general.position_encodings if caps.general else None) or []
        td, ws = caps.text_document, caps.workspace
        edit = ws.workspace_edit if ws else None
        return cls(
            document_changes=bool(edit and edit.document_changes),
            fixture_moves=fixture_moves(edit, info),
            link_tooltips=bool(td and td.document_link and td.document_link.tooltip_support),
            encoding=UTF8 if T.PositionEncodingKind.Utf8 in encs else UTF16,
            pull=bool(td is not None and td.diagnostic is not None),
            refresh=bool(ws and ws.diagnostics and ws.diagnostics.refresh_support),
            configuration=bool(ws and ws.configuration),
            code_lens_refresh=bool(ws and ws.code_lens and ws.code_lens.refresh_support),
            watch_files=bool(ws and ws.did_change_watched_files
                             and ws.did_change_watched_files.dynamic_registration),
            progress=bool(caps.window and caps.window.work_done_progress),
            snippets=bool(td and td.completion and td.completion.completion_item
                          and td.completion.completion_item.snippet_support),
            inlay_refresh=bool(ws and ws.inlay_hint and ws.inlay_hint.refresh_support),
        )


@dataclass(frozen=True)
class Cursor:
    """An LSP position resolved on an open document: runner coordinates."""

    uri: str
    path: str | None
    doc: Document
    line: int  # 1-based
    column: int  # code points


def initial_folders(params: T.InitializeParams) -> list[str]:
    folders = [uri_to_path(f.uri) for f in (params.workspace_folders or [])]
    if not folders:
        root = params.root_uri and uri_to_path(params.root_uri)
        if not root and params.root_path:
            root = norm(params.root_path)
        folders = [root] if root else []
    return [f for f in folders if f]


class Session:
    def __init__(self) -> None:
        self.docs = DocumentStore()
        self.model = WorkspaceModel()
        self.parses = ParseCache()  # parsed manifest buffers, one per open manifest
        self.settings = Settings()
        self.client = ClientCapabilities()
        self.path_uris: dict[str, str] = {}  # path -> the URI the client opened it under

    @property
    def encoding(self) -> str:
        return self.client.encoding

    # ------------------------------------------------------------------ documents
    def open(self, params: T.DidOpenTextDocumentParams) -> str | None:
        td = params.text_document
        self.docs.open(td.uri, td.language_id, td.version, td.text)
        path = uri_to_path(td.uri)
        if path:
            self.path_uris[path] = td.uri
            if is_manifest_path(path):
                self.model.add_manifest(path)
        return path

    def change(self, params: T.DidChangeTextDocumentParams) -> Document | None:
        doc = self.docs.get(params.text_document.uri)
        if doc is None:
            return None
        enc = self.encoding
        with self.docs.lock:
            for change in params.content_changes:
                rng = getattr(change, "range", None)
                if rng is None:
                    doc.apply(None, None, change.text, enc)
                else:
                    doc.apply((rng.start.line, rng.start.character),
                              (rng.end.line, rng.end.character), change.text, enc)
            doc.version = params.text_document.version
        return doc

    def close(self, uri: str) -> str | None:
        self.docs.close(uri)
        path = uri_to_path(uri)
        if path:
            self.parses.forget(path)  # the parse goes with the buffer (no leak per cycle)
            if self.path_uris.get(path) == uri:  # nor a table entry per path ever opened
                del self.path_uris[path]
        return path

    def open_uri(self, path: str) -> str | None:
        uri = self.path_uris.get(path)
        return uri if uri is not None and uri in self.docs else None

    def buffer_text(self, path: str) -> str | None:
        uri = self.open_uri(path)
        if uri is None:
            return None
        with self.docs.lock:
            doc = self.docs.get(uri)
            return doc.text if doc is not None else None

    def read_text(self, path: str) -> str | None:
        """The open buffer, else the file (regular, inside its workflow folder, capped)."""
        t = self.buffer_text(path)
        if t is not None:
            return t
        from stepsmith.runner.safeio import read_workspace_text

        return read_workspace_text(path)

    def cursor(self, uri: str, pos: T.Position) -> Cursor | None:
        """An LSP position on an open document, clamped, in runner coordinates."""
        doc = self.docs.get(uri)
        if doc is None:
            return None
        line, col = doc.offset_pos(pos.line, pos.character, self.encoding)
        return Cursor(uri, uri_to_path(uri), doc, line + 1, col)

    # ------------------------------------------------------------------ snapshot
    def snapshot(self) -> WorkspaceSnapshot:
        """The open buffers (by path), the index and the size limit, frozen now. Any thread:
        documents are mutated under `docs.lock`, the index is swapped whole."""
        with self.docs.lock:
            buffers = {}
            for uri in self.docs.uris():
                path = uri_to_path(uri)
                doc = self.docs.get(uri)
                if path and doc is not None:
                    buffers[path] = doc.buffer()
        return WorkspaceSnapshot.of(self.model.index, buffers,
                                    max_file_size=self.settings.maxFileSize, parses=self.parses)


# how a rename moves fixtures/<id>/ along (handlers/rename.py): as a folder, file by file (older
# Neovim renames only files), or not at all
def fixture_moves(edit: T.WorkspaceEditClientCapabilities | None, info: T.ClientInfo | None) -> str:
    ops = (edit.resource_operations or []) if edit is not None else []
    if T.ResourceOperationKind.Rename not in ops:
        return "none"
    if info is not None and info.name == "Neovim" and _version(info.version) < (0, 9):
        return "files"
    return "folder"


def _version(text: str | None) -> tuple[int, ...]:
    parts = re.findall(r"\d+", text or "")
    return tuple(int(p) for p in parts[:3]) if parts else (10**6,)
