"""The stepsmith language server (pygls 2.x): adapts stepsmith.runner to LSP.

The state is the `Session` (session.py); analysis is the `Scheduler`'s (scheduler.py) on
WorkspaceSnapshots; each LSP method is a handler module (handlers/); publishing is publish.py.
This module holds the protocol corrections and the process lifecycle. A failing handler is
answered as a JSON-RPC error and logged (handlers/common.py `safe`); the server keeps serving.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lsprotocol import types as T
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from stepsmith.runner import __version__
from stepsmith.server.publish import Publisher
from stepsmith.server.scheduler import DocResult, Scheduler
from stepsmith.server.session import Session

log = logging.getLogger("stepsmith.server")
_ANSWERED = object()  # a message already answered while decoding it

READY_TIMEOUT = 5.0  # longest a reach / fixtures request waits for discovery + first checks


class StepsmithProtocol(LanguageServerProtocol):
    """Own document store (fast incremental edits, exact encodings) instead of pygls's."""

    def structure_message(self, data):
        """A request whose params do not decode (e.g. a negative position) is answered
        InvalidParams with its id: pygls would only log it, leaving the client waiting."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "id" in data and "method" in data:
                err = JsonRpcInvalidParams(f"invalid params for {data.get('method')}")
                if not isinstance(exc, JsonRpcInvalidParams):
                    err = exc
                self._send_response(data["id"], None, err.to_response_error())
                return _ANSWERED
            raise

    def handle_message(self, message):
        if message is _ANSWERED:
            return
        super().handle_message(message)

    @property
    def shutdown_requested(self) -> bool:
        return self._shutdown

    def send_json(self, method: str, params: dict) -> None:
        """A notification whose params are plain JSON data already (skips cattrs: diagnostics
        are built as dicts by convert.py, the hot path of every keystroke)."""
        self._send_data({"jsonrpc": "2.0", "method": method, "params": params})

    def _handle_cancel_notification(self, msg_id):
        """pygls cancels only the outer future of a command (executeCommand runs the command
        as an inner task): cancel that task too, so a run stops and kills its sandboxes."""
        task = self._server.request_tasks.pop(msg_id, None)
        super()._handle_cancel_notification(msg_id)
        if task is not None and not task.done():
            task.cancel()

    @lsp_method(T.SHUTDOWN)
    def lsp_shutdown(self, *args):
        """pygls cancels the pending requests while iterating the dict their callbacks pop
        from ("dictionary changed size during iteration"): iterate over a copy."""
        if (handler := self.fm.features.get(T.SHUTDOWN)) is not None:
            yield handler, args, None
        current = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()
        self._shutdown = True

    @lsp_method(T.EXIT)
    def lsp_exit(self, *args):
        """Exit status 0 after `shutdown`, 1 without (LSP); the process ends in main()."""
        self._server.end(0 if self._shutdown else 1)
        yield from ()

    @lsp_method(T.INITIALIZE)
    def lsp_initialize(self, params: T.InitializeParams):
        td = params.capabilities.text_document
        pulls = td is not None and td.diagnostic is not None
        general = params.capabilities.general
        if general is not None and general.position_encodings:
            encs = list(general.position_encodings)
            if T.PositionEncodingKind.Utf8 in encs:  # prefer UTF-8 when offered
                encs.remove(T.PositionEncodingKind.Utf8)
                general.position_encodings = [T.PositionEncodingKind.Utf8] + encs
            elif T.PositionEncodingKind.Utf16 not in encs:
                general.position_encodings = [T.PositionEncodingKind.Utf16]
        result = yield from super().lsp_initialize(params)
        if not pulls:  # PROTOCOL.md: only clients that pull get a diagnosticProvider
            result.capabilities.diagnostic_provider = None
        return result

    # document sync goes to the session (handlers/documents.py), not pygls's own store
    @lsp_method(T.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: T.DidOpenTextDocumentParams):
        from stepsmith.server.handlers import documents

        documents.did_open(self._server, params)
        yield from ()

    @lsp_method(T.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: T.DidChangeTextDocumentParams):
        from stepsmith.server.handlers import documents

        documents.did_change(self._server, params)
        yield from ()

    @lsp_method(T.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: T.DidCloseTextDocumentParams):
        from stepsmith.server.handlers import documents

        documents.did_close(self._server, params)
        yield from ()


class StepsmithServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("stepsmith", __version__, protocol_cls=StepsmithProtocol,
                         text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
        self.session = Session()
        self.scheduler = Scheduler(self.session, self, self.post)
        self.publisher = Publisher(self)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.runs = None  # runs.Runner, started by the first run or run trigger
        self.ready_waiters: list[asyncio.Future] = []
        self.exit_code: int | None = None  # set by `exit`; None: the client went away
        self.request_tasks: dict[Any, asyncio.Task] = {}  # request id -> its cancellable task
        # () -> (available, why not): None asks the sandbox; injected by the test-suite's server
        self.sandbox_probe: Callable[[], tuple[bool, str]] | None = None

        # language services run here, never on the event loop (a 5 MB document's symbols
        # must not stall every other request)
        self.services = ThreadPoolExecutor(max_workers=2, thread_name_prefix="stepsmith-service")

    # ------------------------------------------------------------------ threads
    async def off_loop(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.services, fn, *args)

    def post(self, fn, *args) -> None:
        """Run `fn(*args)` on the event loop (from any thread); dropped once it has closed."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:
            pass

    def on_loop(self, fn) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if self.loop is None or running is self.loop:
            fn()
        else:
            self.post(fn)

    async def cancellable(self, coro):
        """Run `coro` as the current request's task that `$/cancelRequest` cancels."""
        msg_id = self.protocol.msg_id
        task = asyncio.current_task()
        if msg_id is not None and task is not None:
            self.request_tasks[msg_id] = task
        try:
            return await coro
        finally:
            if msg_id is not None:
                self.request_tasks.pop(msg_id, None)

    @property
    def runner(self):
        if self.runs is None:
            from stepsmith.server.fixture_runs import Runner

            self.runs = Runner(self)
        return self.runs

    # ------------------------------------------------------------------ lifecycle
    def stop_serving(self) -> None:
        """End background work: the analysis worker, runs and their sandboxes."""
        self.scheduler.stop()
        if self.runs is not None:
            self.runs.shutdown()

    def end(self, code: int) -> None:
        """End the process now (`exit`, SIGINT/SIGTERM). A normal interpreter exit would wait
        forever for pygls's reader thread, blocked on stdin, so flush and `os._exit`."""
        self.exit_code = code
        try:
            self.stop_serving()
        except Exception:
            log.exception("stopping the server failed")
        try:  # the protocol writer flushes every message; stderr may hold a last log line
            sys.stderr.flush()
        except Exception:
            pass
        os._exit(code)

    def shutdown(self) -> None:  # pygls: called as start_io returns; never wait on stdin
        if self._stop_event is not None:
            self._stop_event.set()
        if self._thread_pool:
            self._thread_pool.shutdown(wait=False, cancel_futures=True)
        if self._server:
            self._server.close()

    # ------------------------------------------------------------------ messages
    def log_exception(self, what: str, exc: BaseException) -> None:
        text = f"{what}: {type(exc).__name__}: {exc}\n" + "".join(
            traceback.format_exception(type(exc), exc, exc.__traceback__)[-6:])
        log.error(text)
        self.log_to_client(text, T.MessageType.Error)

    def log_to_client(self, text: str, kind: T.MessageType = T.MessageType.Log) -> None:
        def send():
            try:
                self.protocol.notify(T.WINDOW_LOG_MESSAGE, T.LogMessageParams(type=kind, message=text))
            except Exception:
                log.exception("could not send logMessage")

        self.on_loop(send)

    def show_message(self, text: str, kind: T.MessageType = T.MessageType.Warning) -> None:
        self.on_loop(lambda: self.protocol.notify(
            T.WINDOW_SHOW_MESSAGE, T.ShowMessageParams(type=kind, message=text)))

    def send_raw(self, method: str, params: dict) -> None:
        """Send a notification whose params are plain JSON data."""
        self.protocol.send_json(method, params)

    def report_server_error(self, error: Exception, source) -> None:
        # pygls's default shows a popup per error; log instead and keep serving
        if isinstance(error, JsonRpcException) and isinstance(error.__cause__, Exception):
            return  # raised by `safe`, which logged it with its traceback already
        try:
            self.log_to_client(f"stepsmith server error ({getattr(source, '__name__', source)}): {error}",
                               T.MessageType.Error)
        except Exception:
            pass

    # ------------------------------------------------------------------ the scheduler's sink
    def accepted(self, result: DocResult, refresh: bool) -> None:
        self.publisher.publish(result.uri, refresh=refresh)

    def notes(self, path: str, text: str) -> tuple:
        """(worker thread) The coverage notes of a step file's text from the last traced runs
        (server/live.py): static branch analysis and the line carry, never on the loop."""
        runs = self.runs
        if runs is None or not path.endswith(".py") or not self.session.settings.coverageDiagnostics:
            return ()
        return tuple(runs.live.untaken(path, text))

    def manifest_checked(self, path: str) -> None:
        self.publisher.lenses_changed()  # lenses list the steps a function implements

    def awaiting_ready(self) -> bool:
        """Does a request wait for the workspace to settle? (any thread; a racy read is fine:
        the worker re-posts `check_ready` after every job while one waits)"""
        return bool(self.ready_waiters)

    def check_ready(self) -> None:
        """(loop thread) Wake the requests waiting for `wait_workspace_ready` once settled."""
        if not self.ready_waiters or not self.scheduler.settled():
            return
        waiters, self.ready_waiters = self.ready_waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(True)

    async def wait_workspace_ready(self, timeout: float = READY_TIMEOUT) -> bool:
        """Wait, without blocking the loop, until the workspace's workflows have been discovered
        and every known manifest has been checked once (`Scheduler.settled`), so that reach and
        fixture listings are complete: right after `initialized`, after a workspace-folder change,
        after a new manifest appears. Bounded: after `timeout` seconds it answers with what is
        known (False)."""
        sc = self.scheduler
        if not sc.discovered and not sc.discovery_pending():
            sc.schedule("discover", "", front=True)  # e.g. a request before `initialized`
        fut = asyncio.get_running_loop().create_future()
        # register first, then test: the worker posts check_ready after each job it finishes
        # while a waiter exists, so a job ending after this test still wakes us
        self.ready_waiters.append(fut)
        if sc.settled():
            self.ready_waiters.remove(fut)
            return True
        try:
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            log.warning("workspace not settled after %.1fs: answering with what is known", timeout)
            return False
        finally:
            if fut in self.ready_waiters:
                self.ready_waiters.remove(fut)

    # ------------------------------------------------------------------ workspace changes
    def forget_manifest(self, path: str) -> None:
        model = self.session.model
        m = model.manifests.get(path)
        files = list(m.step_files) if m is not None else []
        model.remove_manifest(path)
        self.scheduler.forget_manifest(path)
        for f in files:
            uri = self.session.open_uri(f)
            if uri is not None:
                self.scheduler.schedule("doc", uri)
        self.check_ready()  # it may have been the last manifest a request waited for

    def apply_settings(self, raw: Any) -> None:
        session = self.session
        old = session.settings
        session.settings = old.merged(raw)
        new = session.settings
        if old.trusted != new.trusted:  # the workspace's settings may (not) name interpreters
            from stepsmith.runner import pythons
            from stepsmith.runner.settings import trust_project_pythons

            trust_project_pythons(new.trusted)
            pythons.forget()
            for manifest in list(session.model.index.manifests):
                self.scheduler.schedule("manifest", manifest)
        if (old.maxFileSize, old.coverageDiagnostics) != (new.maxFileSize, new.coverageDiagnostics):
            for uri in session.docs.uris():
                self.scheduler.schedule("doc", uri)
        if self.runs is not None:
            self.runs.settings_changed(old)


def create_server() -> StepsmithServer:
    ls = StepsmithServer()
    from stepsmith.server.handlers import register_all

    register_all(ls)
    return ls
