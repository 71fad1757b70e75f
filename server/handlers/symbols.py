"""textDocument/documentSymbol -> runner.language.symbols (off the loop, capped)."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.convert import lsp_span
from stepsmith.server.handlers.common import safe

KINDS = {"step": T.SymbolKind.Function, "source": T.SymbolKind.Field, "effect": T.SymbolKind.Event,
         "connection": T.SymbolKind.Interface, "section": T.SymbolKind.Namespace,
         "function": T.SymbolKind.Function, "import": T.SymbolKind.Module, "key": T.SymbolKind.Key}


def convert(syms, lines, enc) -> list[T.DocumentSymbol]:
    return [T.DocumentSymbol(name=s.name or "?", kind=KINDS.get(s.kind, T.SymbolKind.Key),
                             range=lsp_span(s.span, lines, enc),
                             selection_range=lsp_span(s.selection, lines, enc),
                             detail=s.detail or None,
                             children=convert(s.children, lines, enc) or None) for s in syms]


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @safe
    async def document_symbol(ls, params: T.DocumentSymbolParams):
        from stepsmith.runner.language.symbols import symbols

        doc = ls.session.docs.get(params.text_document.uri)
        path = ls.session.cursor(params.text_document.uri, T.Position(0, 0))
        if doc is None or path is None or not path.path:
            return None
        ws, enc = ls.session.snapshot(), ls.session.encoding
        buf = ws.buffer(path.path)

        def compute():
            return convert(symbols(ws, path.path, doc.language_id), buf.lines, enc)

        return await ls.off_loop(compute)
