"""textDocument/codeAction -> runner.language.actions.code_actions (quick fixes)."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.runner.problems import Problem, Span
from stepsmith.server.convert import lsp_span
from stepsmith.server.handlers.common import safe


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


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
    @safe
    async def code_action(ls, params: T.CodeActionParams):
        from stepsmith.runner.language.actions import code_actions

        uri, enc = params.text_document.uri, ls.session.encoding
        at = ls.session.cursor(uri, params.range.start)
        only = params.context.only
        if at is None or not at.path or (only and not any(str(k).startswith("quickfix") for k in only)):
            return None
        ws, doc = ls.session.snapshot(), at.doc
        lines, version = ws.buffer(at.path).lines, ws.buffer(at.path).version
        pairs = [(d, p) for d in params.context.diagnostics if d.source in (None, "stepsmith")
                 and (p := problem_of(doc, d, enc)) is not None]
        fixes = await ls.off_loop(lambda: [(d, code_actions(ws, at.path, [p])) for d, p in pairs])
        return [T.CodeAction(
            title=fx.title, kind=T.CodeActionKind.QuickFix, diagnostics=[d], is_preferred=True,
            edit=T.WorkspaceEdit(document_changes=[T.TextDocumentEdit(
                text_document=T.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=[T.TextEdit(range=lsp_span(e.span, lines, enc), new_text=e.new_text)
                       for e in fx.edits])]))
            for d, fxs in fixes for fx in fxs] or None
