"""textDocument/hover -> runner.language.hover (off the loop)."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.convert import lsp_span
from stepsmith.server.handlers.common import safe
from stepsmith.server.workspace import is_manifest_path, path_to_uri


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_HOVER)
    @safe
    async def hover(ls, params: T.HoverParams):
        from stepsmith.runner.language.hover import hover as service

        at = ls.session.cursor(params.text_document.uri, params.position)
        if at is None or not at.path:
            return None
        if not is_manifest_path(at.path):
            await ls.wait_workspace_ready()  # the reach card needs the manifests using this file
        res = ls.scheduler.current(at.uri)
        ws = ls.session.snapshot()
        found = await ls.off_loop(lambda: service(
            ws, at.path, at.line, at.column, problems=res.problems if res else (),
            language_id=at.doc.language_id, uri_of=path_to_uri))
        found = await values_hover(ls, ws, at, found)
        if found is None:
            return None
        lines = ws.lines(at.path) or [""]
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=found.markdown),
                       range=lsp_span(found.span, lines, ls.session.encoding) if found.span else None)


async def values_hover(ls, ws, at, found):
    """The hover plus, on a step file line a fixture ran, the value of the name under the
    cursor (server/live.py; the fixture chosen for values)."""
    if ls.runs is None or not at.path.endswith(".py"):
        return found
    buf = ws.buffer(at.path)
    if buf is None:
        return found
    md = await ls.off_loop(ls.runs.live.hover, at.path, buf.text, at.line, at.column)
    if md is None:
        return found
    from stepsmith.runner.language.hover import Hover

    if found is None:
        return Hover(md, None)
    return Hover(found.markdown + "\n\n---\n\n" + md, found.span)
