"""textDocument/codeAction -> runner.language.actions.quick_fixes (quick fixes, each
carrying the edits its rule computed; "declare this effect" edits the manifest) and
runner.language.fixall.fix_all (`source.fixAll.stepsmith`, when the client asks for it)."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.runner.problems import Problem, Span
from stepsmith.server.convert import lsp_span
from stepsmith.server.handlers.common import safe
from stepsmith.server.workspace import path_to_uri

FIX_ALL = "source.fixAll.stepsmith"


def problem_of(doc, d: T.Diagnostic, enc: str) -> Problem | None:
    """A stepsmith diagnostic the client sent back, as the Problem it was made from."""
    if not isinstance(d.code, str):
        return None
    r = d.range
    l1, c1 = doc.offset_pos(r.start.line, r.start.character, enc)
    l2, c2 = doc.offset_pos(r.end.line, r.end.character, enc)
    data = d.data if isinstance(d.data, dict) else {}
    fix = data.get("fix") if isinstance(data.get("fix"), dict) else {}
    return Problem(code=d.code, message=d.message, span=Span(l1 + 1, c1, l2 + 1, c2),
                   step=data.get("step"), data=fix)


def wants(only, kind: str) -> bool:
    """`only` (hierarchical kinds: "source" covers "source.fixAll.stepsmith") admits `kind`."""
    return not only or any(kind == str(k) or kind.startswith(str(k) + ".") for k in only)


def workspace_edit(ls, ws, changes) -> T.WorkspaceEdit:
    """{path: edits} as versioned document edits (the version of an open buffer, else null)."""
    enc, out = ls.session.encoding, []
    for path, edits in changes.items():
        buf, lines = ws.buffer(path), ws.lines(path) or [""]
        out.append(T.TextDocumentEdit(
            text_document=T.OptionalVersionedTextDocumentIdentifier(
                uri=ls.session.open_uri(path) or path_to_uri(path),
                version=buf.version if buf is not None else None),
            edits=[T.TextEdit(range=lsp_span(e.span, lines, enc), new_text=e.new_text)
                   for e in edits]))
    return T.WorkspaceEdit(document_changes=out)


def register(ls) -> None:
    kinds = [T.CodeActionKind.QuickFix, FIX_ALL]

    @ls.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(code_action_kinds=kinds))
    @safe
    async def code_action(ls, params: T.CodeActionParams):
        from stepsmith.runner.language.actions import quick_fixes
        from stepsmith.runner.language.fixall import fix_all

        uri, enc = params.text_document.uri, ls.session.encoding
        at = ls.session.cursor(uri, params.range.start)
        only = params.context.only
        if at is None or not at.path:
            return None
        ws, doc = ls.session.snapshot(), at.doc
        pairs = [(d, p) for d in params.context.diagnostics if d.source in (None, "stepsmith")
                 and (p := problem_of(doc, d, enc)) is not None] if wants(only, "quickfix") else []
        # fix-all re-checks the file in rounds: only when asked for (Fix All, on save)
        everything = bool(only) and wants(only, FIX_ALL)

        def compute():
            found = [(d, a) for d, p in pairs for a in quick_fixes(ws, at.path, [p])]
            return found, fix_all(ws, at.path) if everything else None

        found, whole = await ls.off_loop(compute)
        out = [T.CodeAction(title=a.title, kind=T.CodeActionKind.QuickFix, diagnostics=[d],
                            is_preferred=a.preferred, edit=workspace_edit(ls, ws, a.changes))
               for d, a in found]
        if whole is not None:
            out.append(T.CodeAction(title=whole.title, kind=FIX_ALL,
                                    edit=workspace_edit(ls, ws, whole.changes)))
        return out or None
