"""textDocument/foldingRange and textDocument/selectionRange (manifests and step files) ->
runner.language.ranges (off the loop)."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.convert import lsp_span
from stepsmith.server.handlers.common import safe
from stepsmith.server.workspace import is_manifest_path

FOLD_KINDS = {"comment": T.FoldingRangeKind.Comment, "imports": T.FoldingRangeKind.Imports}


def _ours(at) -> bool:
    return at is not None and bool(at.path) and (at.path.endswith(".py") or is_manifest_path(at.path))


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_FOLDING_RANGE)
    @safe
    async def folding_range(ls, params: T.FoldingRangeParams):
        from stepsmith.runner.language.ranges import folding_ranges

        at = ls.session.cursor(params.text_document.uri, T.Position(0, 0))
        if not _ours(at):
            return None
        folds = await ls.off_loop(folding_ranges, ls.session.snapshot(), at.path)
        return [T.FoldingRange(start_line=f.start - 1, end_line=f.end - 1,
                               kind=FOLD_KINDS.get(f.kind)) for f in folds]

    @ls.feature(T.TEXT_DOCUMENT_SELECTION_RANGE)
    @safe
    async def selection_range(ls, params: T.SelectionRangeParams):
        from stepsmith.runner.language.ranges import selection_ranges

        uri = params.text_document.uri
        at = ls.session.cursor(uri, T.Position(0, 0))
        if not _ours(at):
            return None
        points = [ls.session.cursor(uri, p) for p in params.positions]
        if any(c is None for c in points):  # closed meanwhile
            return None
        ws, enc = ls.session.snapshot(), ls.session.encoding
        chains = await ls.off_loop(selection_ranges, ws, at.path,
                                   [(c.line, c.column) for c in points])
        lines = ws.lines(at.path) or [""]
        out = []
        for chain in chains:
            sr = None
            for span in reversed(chain):  # outermost first: each range's parent holds it
                sr = T.SelectionRange(range=lsp_span(span, lines, enc), parent=sr)
            out.append(sr or T.SelectionRange(range=T.Range(T.Position(0, 0), T.Position(0, 0))))
        return out
