"""textDocument/completion -> runner.language.manifest.complete (off the loop)."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.handlers.common import safe

KINDS = {"property": T.CompletionItemKind.Property, "value": T.CompletionItemKind.EnumMember,
         "reference": T.CompletionItemKind.Reference, "file": T.CompletionItemKind.File,
         "function": T.CompletionItemKind.Function, "module": T.CompletionItemKind.Module}


def item(c) -> T.CompletionItem:
    return T.CompletionItem(
        label=c.label, kind=KINDS.get(c.kind), detail=c.detail or None, insert_text=c.insert_text,
        documentation=T.MarkupContent(kind=T.MarkupKind.Markdown, value=c.documentation)
        if c.documentation else None)


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[":", " ", ".", "/"]))
    @safe
    async def completion(ls, params: T.CompletionParams):
        from stepsmith.runner.language.manifest import complete

        at = ls.session.cursor(params.text_document.uri, params.position)
        if at is None or not at.path:
            return None
        ws = ls.session.snapshot()
        items = await ls.off_loop(complete, ws, at.path, at.line, at.column, at.doc.language_id)
        return T.CompletionList(is_incomplete=False, items=[item(c) for c in items])
