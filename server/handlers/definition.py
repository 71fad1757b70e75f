"""textDocument/definition -> runner.language.navigation.definition (off the loop)."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.handlers.common import locations_at_cursor, safe


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_DEFINITION)
    @safe
    async def definition(ls, params: T.DefinitionParams):
        from stepsmith.runner.language.navigation import definition as service

        return await locations_at_cursor(ls, params, service)
