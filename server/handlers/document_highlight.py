"""textDocument/documentHighlight -> runner.language.navigation.document_highlight."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.convert import lsp_span
from stepsmith.server.handlers.common import at_cursor, safe

KINDS = {"write": T.DocumentHighlightKind.Write, "read": T.DocumentHighlightKind.Read}


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    @safe
    async def document_highlight(ls, params: T.DocumentHighlightParams):
        from stepsmith.runner.language.navigation import document_highlight as service

        here = await at_cursor(ls, params)
        if here is None:
            return None
        (at, ws), enc = here, ls.session.encoding
        found = await ls.off_loop(service, ws, at.path, at.line, at.column)
        lines = ws.lines(at.path) or [""]
        return [T.DocumentHighlight(range=lsp_span(s, lines, enc), kind=KINDS[k])
                for s, k in found] or None
