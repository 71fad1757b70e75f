"""workspace/symbol -> runner.language.navigation_links.workspace_symbols: every step of every
workflow (SymbolInformation, which every client reads; container = the workflow's name)."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.convert import location
from stepsmith.server.handlers.common import safe


def register(ls) -> None:
    @ls.feature(T.WORKSPACE_SYMBOL)
    @safe
    async def workspace_symbol(ls, params: T.WorkspaceSymbolParams):
        from stepsmith.runner.language.navigation_links import (
            workspace_symbols as service,
        )

        await ls.wait_workspace_ready()  # every workflow: known once discovered and checked
        ws = ls.session.snapshot()

        def compute():
            return [T.SymbolInformation(name=s.name, kind=T.SymbolKind.Function,
                                        location=location(ls.session, ws, s.location),
                                        container_name=s.workflow)
                    for s in service(ws, params.query or "")]

        return await ls.off_loop(compute)
