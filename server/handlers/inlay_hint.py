"""textDocument/inlayHint (off the loop): in manifests runner.language.inlay (a cron schedule
in words, the function behind `steps.<id>.output`; setting `stepsmith.inlayHints`, default
on); in step files the values a fixture's run produced, at line ends (runner.language.values
over server/live.py)."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.runner.problems import Span
from stepsmith.server.convert import lsp_span
from stepsmith.server.handlers.common import safe
from stepsmith.server.workspace import is_manifest_path


def _hint(h, lines, enc) -> T.InlayHint:
    pos = lsp_span(Span(h.line, h.column, h.line, h.column), lines, enc).start
    tip = T.MarkupContent(kind=T.MarkupKind.PlainText, value=h.tooltip) if h.tooltip else None
    return T.InlayHint(position=pos, label=h.label, padding_left=True, tooltip=tip)


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_INLAY_HINT, T.InlayHintOptions(resolve_provider=False))
    @safe
    async def inlay_hint(ls, params: T.InlayHintParams):
        at = ls.session.cursor(params.text_document.uri, params.range.start)
        if at is None:
            return None
        end = ls.session.cursor(params.text_document.uri, params.range.end)
        last = end.line if end is not None else None
        ws, enc = ls.session.snapshot(), ls.session.encoding
        if is_manifest_path(at.path):
            if not ls.session.settings.inlayHints:
                return None
            from stepsmith.runner.language.inlay import manifest_inlay_hints

            hints = await ls.off_loop(manifest_inlay_hints, ws, at.path, at.line, last)
            return [_hint(h, ws.lines(at.path) or [""], enc) for h in hints] or None
        if not (at.path or "").endswith(".py") or ls.runs is None:
            return None
        buf = ws.buffer(at.path)
        if buf is None:
            return None
        hints = await ls.off_loop(ls.runs.live.hints, at.path, buf.text, at.line,
                                  last if last is not None else at.line)
        return [_hint(h, buf.lines, enc) for h in hints] or None
