"""workspace/didChangeConfiguration, and reading the `stepsmith` section."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.handlers.common import safe


async def pull_configuration(ls) -> None:
    try:
        res = await ls.protocol.send_request_async(T.WORKSPACE_CONFIGURATION, T.ConfigurationParams(
            items=[T.ConfigurationItem(section="stepsmith")]))
    except Exception as exc:
        ls.log_to_client(f"stepsmith: could not read configuration: {exc}")
        return
    if res and isinstance(res[0], dict):
        ls.apply_settings(res[0])


def register(ls) -> None:
    @ls.feature(T.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @safe
    async def did_change_configuration(ls, params: T.DidChangeConfigurationParams):
        if isinstance(params.settings, dict) and params.settings:
            ls.apply_settings(params.settings)
        elif ls.session.client.configuration:
            await pull_configuration(ls)
