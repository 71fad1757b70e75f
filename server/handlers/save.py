"""textDocument/didSave: run-on-save of a step file's fixtures."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.handlers.common import safe
from stepsmith.server.workspace import uri_to_path


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_DID_SAVE)
    @safe
    def did_save(ls, params: T.DidSaveTextDocumentParams):
        uri = params.text_document.uri
        path = uri_to_path(uri)
        if path and path.endswith(".py") and ls.session.settings.runOnSave:
            ls.runner.on_save(uri)
        if path and getattr(ls, "mutant_runs", None) is not None:  # watched mutants: again
            ls.mutant_runs.on_save(path)
