"""textDocument/definition -> runner.language.navigation.definition (off the loop)."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.convert import location
from stepsmith.server.handlers.common import safe


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_DEFINITION)
    @safe
    async def definition(ls, params: T.DefinitionParams):
        from stepsmith.runner.language.navigation import definition as service

        at = ls.session.cursor(params.text_document.uri, params.position)
        if at is None or not at.path:
            return None
        if at.path.endswith(".py"):
            await ls.wait_workspace_ready()  # which manifests use this file: known once checked
        ws = ls.session.snapshot()
        locs = await ls.off_loop(service, ws, at.path, at.line, at.column)
        return [location(ls.session, ws, loc) for loc in locs] or None
