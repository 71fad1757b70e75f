"""textDocument/documentLink (manifests) -> runner.language.navigation_links.document_links:
`code:` values link to the function's line (`file:///...py#L<line>`, 1-based, as VS Code
opens it), step ids to their `fixtures/<id>/` folder."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.convert import lsp_span
from stepsmith.server.handlers.common import safe
from stepsmith.server.workspace import is_manifest_path, path_to_uri


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_DOCUMENT_LINK, T.DocumentLinkOptions(resolve_provider=False))
    @safe
    async def document_link(ls, params: T.DocumentLinkParams):
        from stepsmith.runner.language.navigation_links import document_links as service

        at = ls.session.cursor(params.text_document.uri, T.Position(0, 0))
        if at is None or not is_manifest_path(at.path):
            return None
        ws, enc = ls.session.snapshot(), ls.session.encoding
        links = await ls.off_loop(service, ws, at.path)
        lines, tips = ws.lines(at.path) or [""], ls.session.client.link_tooltips
        return [T.DocumentLink(range=lsp_span(k.span, lines, enc),
                               target=path_to_uri(k.target) + (f"#L{k.line}" if k.line else ""),
                               tooltip=(k.tooltip or None) if tips else None)
                for k in links] or None
