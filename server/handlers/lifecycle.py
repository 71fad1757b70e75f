"""initialize (resolve the client's capabilities into the session), initialized (discover,
watch files, read settings), shutdown (stop the worker and the runs)."""

from __future__ import annotations

import asyncio

from lsprotocol import types as T
from stepsmith.runner.model.grammar import MANIFEST_GLOBS
from stepsmith.server.handlers.common import safe
from stepsmith.server.handlers.configuration import pull_configuration
from stepsmith.server.session import ClientCapabilities, initial_folders

WATCHED = (*MANIFEST_GLOBS, "**/*.py", "**/fixtures/**/*.json")


def register(ls) -> None:
    @ls.feature(T.INITIALIZE)
    @safe
    def initialize(ls, params: T.InitializeParams):
        ls.loop = asyncio.get_running_loop()
        s = ls.session
        s.client = ClientCapabilities.from_lsp(params.capabilities, params.client_info)
        s.settings = s.settings.merged(params.initialization_options)
        from stepsmith.runner.settings import trust_project_pythons

        trust_project_pythons(s.settings.trusted)
        s.model.set_folders(initial_folders(params))

    @ls.feature(T.INITIALIZED)
    @safe
    async def initialized(ls, params):
        ls.scheduler.schedule("discover", "")
        if ls.session.client.watch_files:
            try:
                await ls.protocol.send_request_async(T.CLIENT_REGISTER_CAPABILITY, T.RegistrationParams(
                    registrations=[T.Registration(
                        id="stepsmith-watch", method=T.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=T.DidChangeWatchedFilesRegistrationOptions(watchers=[
                            *(T.FileSystemWatcher(glob_pattern=g) for g in WATCHED),
                            # a deleted folder is one event for the folder: glob-matched
                            # watchers above never see the manifests inside it go
                            T.FileSystemWatcher(glob_pattern="**/*", kind=T.WatchKind.Delete)]))]))
            except Exception as exc:
                ls.log_to_client(f"stepsmith: file watching not registered: {exc}")
        if ls.session.client.configuration:
            await pull_configuration(ls)

    @ls.feature(T.SHUTDOWN)
    def shutdown(ls, params):
        ls.stop_serving()
