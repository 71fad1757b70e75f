"""textDocument/prepareRename + textDocument/rename -> runner.language.rename (off the loop)
-> a WorkspaceEdit.

How a step rename moves `fixtures/<id>/` depends on the client (`fixture_moves`, resolved at
initialize): "folder" - one RenameFile of the folder (VS Code); "files" - Neovim < 0.9
advertises `resourceOperations: rename` but fails on a folder (E502, neovim#22147) and cannot
create one: the server makes `fixtures/<new>/` (runner/safeio) and sends one RenameFile per
fixture, then a DeleteFile of the emptied folder; "none" - text edits only, and a warning
naming the folder to rename by hand. A refused rename is RequestFailed (-32803) with the reason.
"""

from __future__ import annotations

from lsprotocol import types as T
from pygls.exceptions import JsonRpcException
from stepsmith.server.convert import lsp_span
from stepsmith.server.handlers.common import safe
from stepsmith.server.workspace import path_to_uri

REQUEST_FAILED = -32803


def _uri(session, path: str) -> str:
    return session.open_uri(path) or path_to_uri(path)


def workspace_edit(session, ws, plan) -> T.WorkspaceEdit:
    enc, client = session.encoding, session.client

    def edits(path):
        lines = ws.lines(path) or [""]
        return [T.TextEdit(range=lsp_span(e.span, lines, enc), new_text=e.new_text)
                for e in plan.edits[path]]

    if not client.document_changes and client.fixture_moves == "none":
        return T.WorkspaceEdit(changes={_uri(session, p): edits(p) for p in plan.edits})
    changes: list = []
    for path in plan.edits:
        buf = ws.buffer(path)
        changes.append(T.TextDocumentEdit(
            text_document=T.OptionalVersionedTextDocumentIdentifier(
                uri=_uri(session, path), version=buf.version if buf is not None else None),
            edits=edits(path)))
    changes += [T.RenameFile(old_uri=path_to_uri(r.old), new_uri=path_to_uri(r.new))
                for r in plan.renames]
    changes += [T.DeleteFile(uri=path_to_uri(d), options=T.DeleteFileOptions(
        recursive=False, ignore_if_not_exists=True)) for d in plan.deletes]
    return T.WorkspaceEdit(document_changes=changes)


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_PREPARE_RENAME)
    @safe
    async def prepare_rename(ls, params: T.PrepareRenameParams):
        from stepsmith.runner.language.rename import prepare_rename as service

        at = ls.session.cursor(params.text_document.uri, params.position)
        if at is None or not at.path:
            return None
        await ls.wait_workspace_ready()  # a name's uses in other files: known once checked
        ws = ls.session.snapshot()
        found = await ls.off_loop(service, ws, at.path, at.line, at.column)
        if found is None:
            return None
        span, name = found
        return T.PrepareRenamePlaceholder(
            range=lsp_span(span, ws.lines(at.path) or [""], ls.session.encoding), placeholder=name)

    @ls.feature(T.TEXT_DOCUMENT_RENAME)
    @safe
    async def rename(ls, params: T.RenameParams):
        from stepsmith.runner.language.rename import RenameError, make_target_folder
        from stepsmith.runner.language.rename import rename as service
        from stepsmith.runner.safeio import UnsafePath

        at = ls.session.cursor(params.text_document.uri, params.position)
        if at is None or not at.path:
            return None
        await ls.wait_workspace_ready()
        ws, how = ls.session.snapshot(), ls.session.client.fixture_moves

        def plan():
            p = service(ws, at.path, at.line, at.column, params.new_name, fixtures=how)
            make_target_folder(p)
            return p

        try:
            p = await ls.off_loop(plan)
        except (RenameError, UnsafePath) as exc:
            raise JsonRpcException(code=REQUEST_FAILED, message=str(exc)) from exc
        for note in p.notes:
            ls.show_message(f"stepsmith: {note}")
        return workspace_edit(ls.session, ws, p)
