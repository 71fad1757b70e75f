"""textDocument/definition -> runner.language.navigation.definition (off the loop)."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.convert import location
from stepsmith.server.handlers.common import at_cursor, safe


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_DEFINITION)
    @safe
    async def definition(ls, params: T.DefinitionParams):
        from stepsmith.runner.language.navigation import definition as service

        found = await at_cursor(ls, params, wait="py")
        if found is None:
            return None
        at, ws = found
        locs = await ls.off_loop(service, ws, at.path, at.line, at.column)
        return [location(ls.session, ws, loc) for loc in locs] or None
