"""textDocument/inlayHint: the values a fixture's run produced, at line ends
(runner.language.values over server/live.py). Other hint kinds add their list to `hints`."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.runner.problems import Span
from stepsmith.server.convert import lsp_span
from stepsmith.server.handlers.common import safe


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_INLAY_HINT, T.InlayHintOptions(resolve_provider=False))
    @safe
    async def inlay_hint(ls, params: T.InlayHintParams):
        at = ls.session.cursor(params.text_document.uri, params.range.start)
        if at is None or not (at.path or "").endswith(".py") or ls.runs is None:
            return []
        end = ls.session.cursor(params.text_document.uri, params.range.end)
        ws, enc = ls.session.snapshot(), ls.session.encoding
        buf = ws.buffer(at.path)
        hints = await ls.off_loop(ls.runs.live.hints, at.path, buf.text, at.line,
                                  end.line if end else at.line)
        out = []
        for h in hints:
            pos = lsp_span(Span(h.line, h.column, h.line, h.column), buf.lines, enc).start
            out.append(T.InlayHint(position=pos, label=h.label, padding_left=True,
                                   tooltip=T.MarkupContent(kind=T.MarkupKind.PlainText,
                                                           value=h.tooltip)))
        return out
