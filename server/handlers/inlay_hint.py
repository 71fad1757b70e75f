"""textDocument/inlayHint -> runner.language.inlay (manifests; off the loop). The
`stepsmith.inlayHints` setting (default on) turns them off."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.runner.problems import Span
from stepsmith.server.convert import lsp_span
from stepsmith.server.handlers.common import safe
from stepsmith.server.workspace import is_manifest_path


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_INLAY_HINT, T.InlayHintOptions(resolve_provider=False))
    @safe
    async def inlay_hint(ls, params: T.InlayHintParams):
        from stepsmith.runner.language.inlay import manifest_inlay_hints

        at = ls.session.cursor(params.text_document.uri, params.range.start)
        if at is None or not is_manifest_path(at.path) or not ls.session.settings.inlayHints:
            return None
        end = ls.session.cursor(params.text_document.uri, params.range.end)
        ws = ls.session.snapshot()
        hints = await ls.off_loop(manifest_inlay_hints, ws, at.path, at.line,
                                  end.line if end is not None else None)
        lines, enc = ws.lines(at.path) or [""], ls.session.encoding
        return [T.InlayHint(position=lsp_span(Span(h.line, h.column, h.line, h.column), lines, enc).start,
                            label=h.label, padding_left=True, tooltip=h.tooltip or None)
                for h in hints] or None
