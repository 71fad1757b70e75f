"""textDocument/references -> runner.language.navigation.references (off the loop)."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.handlers.common import locations_at_cursor, safe


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_REFERENCES)
    @safe
    async def references(ls, params: T.ReferenceParams):
        from stepsmith.runner.language.navigation import references as service

        return await locations_at_cursor(ls, params, service, params.context.include_declaration)
