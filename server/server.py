"""The stepsmith language server (pygls 2.x): adapts stepsmith.runner to LSP.

Analysis lives in `stepsmith.runner` (validator, manifest, reach, language); this module only
keeps documents, schedules work (analysis.Analyzer, runs.Runner) and converts to LSP shapes.
Every handler is wrapped: an exception is logged to the client (window/logMessage) and the
request gets an empty answer, so the server keeps serving.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sys
import traceback
from typing import Any

from lsprotocol import types as T
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from stepsmith.runner import __version__
from stepsmith.runner.problems import Span
from stepsmith.runner.workspace.snapshot import ParseCache, WorkspaceSnapshot
from stepsmith.server.analysis import Analyzer
from stepsmith.server.convert import lsp_range, to_diagnostic
from stepsmith.server.documents import UTF16, DocumentStore
from stepsmith.server.settings import Settings
from stepsmith.server.workspace import (
    WorkspaceModel,
    is_manifest_path,
    path_to_uri,
    uri_to_path,
)

log = logging.getLogger("stepsmith.server")
_ANSWERED = object()  # a message already answered while decoding it

READY_TIMEOUT = 5.0  # longest a reach / fixtures request waits for discovery + first checks
COMMANDS = ("stepsmith.runStepFixtures", "stepsmith.runFixture", "stepsmith.recordFixture",
            "stepsmith.pending.list", "stepsmith.pending.accept", "stepsmith.pending.reject",
            "stepsmith.pending.acceptAll", "stepsmith.pending.rejectAll")


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

    @lsp_method(T.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: T.DidOpenTextDocumentParams):
        self._server.on_open(params)
        yield from ()

    @lsp_method(T.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: T.DidChangeTextDocumentParams):
        self._server.on_change(params)
        yield from ()

    @lsp_method(T.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: T.DidCloseTextDocumentParams):
        self._server.on_close(params)
        yield from ()


class StepsmithServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("stepsmith", __version__, protocol_cls=StepsmithProtocol,
                         text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
        self.docs = DocumentStore()
        self.model = WorkspaceModel()
        self.parses = ParseCache()  # parsed manifest buffers, one per open manifest
        self.analyzer = Analyzer(self)
        self.settings = Settings()
        self.encoding = UTF16
        self.pull = False
        self.refresh_support = False
        self.loop: asyncio.AbstractEventLoop | None = None
        self.path_uris: dict[str, str] = {}
        self._published: dict[str, Any] = {}
        self._refresh_pending = False
        self._lens_refresh_pending = False
        self._runner = None
        self._shown_unavailable = False
        self.ready_waiters: list[asyncio.Future] = []
        self.exit_code: int | None = None  # set by `exit`; None: the client went away
        self.request_tasks: dict[Any, asyncio.Task] = {}  # request id -> its cancellable task
        from concurrent.futures import ThreadPoolExecutor

        # language services run here, never on the event loop (a 5 MB document's symbols
        # must not stall every other request)
        self.services = ThreadPoolExecutor(max_workers=2, thread_name_prefix="stepsmith-service")

    async def off_loop(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.services, fn, *args)

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

    def stop_serving(self) -> None:
        """End background work: the analysis worker, runs and their sandboxes."""
        self.analyzer.stop()
        if self._runner is not None:
            self._runner.shutdown()

    def end(self, code: int) -> None:
        """End the process now (`exit`, SIGINT/SIGTERM). A normal interpreter exit would wait
        forever for pygls's reader thread, blocked on stdin, so flush and `os._exit`."""
        self.exit_code = code
        try:
            self.stop_serving()
        except Exception:
            log.exception("stopping the server failed")
        for stream in (sys.stderr, self.protocol.writer and getattr(self.protocol.writer, "_stdout", None)):
            try:
                stream and stream.flush()
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

    # ------------------------------------------------------------------ utilities
    @property
    def runner(self):
        if self._runner is None:
            from stepsmith.server.runs import Runner

            self._runner = Runner(self)
        return self._runner

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

        self._on_loop(send)

    def show_message(self, text: str, kind: T.MessageType = T.MessageType.Warning) -> None:
        self._on_loop(lambda: self.protocol.notify(
            T.WINDOW_SHOW_MESSAGE, T.ShowMessageParams(type=kind, message=text)))

    def _on_loop(self, fn) -> None:
        loop = self.loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or running is loop:
            fn()
        elif not loop.is_closed():
            loop.call_soon_threadsafe(fn)

    def send_raw(self, method: str, params: dict) -> None:
        """Send a notification whose params are plain JSON data (skips cattrs)."""
        self.protocol._send_data({"jsonrpc": "2.0", "method": method, "params": params})

    def report_server_error(self, error: Exception, source) -> None:
        # pygls's default shows a popup per error; log instead and keep serving
        if isinstance(error, JsonRpcException) and isinstance(error.__cause__, Exception):
            return  # raised by @safe, which logged it with its traceback already
        try:
            self.log_to_client(f"stepsmith server error ({getattr(source, '__name__', source)}): {error}",
                               T.MessageType.Error)
        except Exception:
            pass

    def open_uri(self, path: str) -> str | None:
        uri = self.path_uris.get(path)
        if uri is not None and uri in self.docs:
            return uri
        return None

    def buffer_text(self, path: str) -> str | None:
        uri = self.open_uri(path)
        if uri is None:
            return None
        with self.docs.lock:
            doc = self.docs.get(uri)
            return doc.text if doc is not None else None

    def workspace_snapshot(self) -> WorkspaceSnapshot:
        """The open buffers (by path), the index and the size limit, frozen now. Any thread:
        documents are mutated under `docs.lock`, the index is swapped whole."""
        with self.docs.lock:
            buffers = {}
            for uri in self.docs.uris():
                path = uri_to_path(uri)
                doc = self.docs.get(uri)
                if path and doc is not None:
                    buffers[path] = doc.buffer()
        return WorkspaceSnapshot.of(self.model.index, buffers,
                                    max_file_size=self.settings.maxFileSize, parses=self.parses)

    def read_text(self, path: str) -> str | None:
        t = self.buffer_text(path)
        if t is not None:
            return t
        # untrusted workspace too: a regular file inside its workflow folder, capped
        # (`ln -s /dev/zero workflow.yaml` must not grow the server until the OOM killer)
        from stepsmith.runner.safeio import read_workspace_text

        return read_workspace_text(path)

    # ------------------------------------------------------------------ document events
    def on_open(self, params: T.DidOpenTextDocumentParams) -> None:
        td = params.text_document
        self.docs.open(td.uri, td.language_id, td.version, td.text)
        self._published.pop(td.uri, None)
        self.analyzer.results.pop(td.uri, None)
        path = uri_to_path(td.uri)
        if path:
            self.path_uris[path] = td.uri
            if is_manifest_path(path) and self.model.add_manifest(path):
                pass
        self.analyzer.schedule("doc", td.uri, front=True)
        # a step file open in a buffer now wins over disk for the manifests naming it
        if path:
            for m in self.model.manifests_using(path):
                self.analyzer.schedule("manifest", m.path)
            if self._fixture_results_for(path):  # a fixture file: its results, now versioned
                self.publish_fixture_results(td.uri, path)

    def on_change(self, params: T.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = self.docs.get(uri)
        if doc is None:
            log.warning("didChange for a document that is not open: %s", uri)
            return
        enc = self.encoding
        with self.docs.lock:
            for change in params.content_changes:
                rng = getattr(change, "range", None)
                if rng is None:
                    doc.apply(None, None, change.text, enc)
                else:
                    doc.apply((rng.start.line, rng.start.character),
                              (rng.end.line, rng.end.character), change.text, enc)
            doc.version = params.text_document.version
        self.analyzer.schedule("doc", uri, front=True)
        if self.settings.runOnType:
            self.runner.on_type(uri)
        if self._runner is not None and self._runner.problems:
            path = uri_to_path(uri)
            if self._fixture_results_for(path):  # keep them on the new text, with its version
                self.publish_fixture_results(uri, path)

    def on_close(self, params: T.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        self.docs.close(uri)
        path = uri_to_path(uri)
        self.analyzer.results.pop(uri, None)
        for _, fut in self.analyzer.waiters.pop(uri, []):
            if not fut.done():
                fut.set_result(False)  # closed: its requests answer now
        if path:
            self.parses.forget(path)  # the parse goes with the buffer
        self._published.pop(uri, None)
        # clear what we published
        self.send_raw(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, {"uri": uri, "diagnostics": []})
        if path and not _analysed(path, "") and self._fixture_results_for(path):
            # a fixture file's run results belong to the file, not the buffer: back on disk text
            from stepsmith.runner.language.lines import split_lines

            self.publish_unversioned(uri, self._runner.fixture_diagnostics(
                path, split_lines(self.read_text(path) or "")))
        if path:
            for m in self.model.manifests_using(path):  # the disk version applies again
                self.analyzer.schedule("manifest", m.path)
            if is_manifest_path(path):
                if os.path.exists(path):
                    self.analyzer.schedule("manifest", path)
                else:  # an unsaved new manifest: forget it, and what it said about step files
                    self.forget_manifest(path)

    def forget_manifest(self, path: str) -> None:
        m = self.model.manifests.get(path)
        files = list(m.step_files) if m is not None else []
        self.model.remove_manifest(path)
        for f in files:
            uri = self.open_uri(f)
            if uri is not None:
                self.analyzer.schedule("doc", uri)
        self.check_ready()  # it may have been the last manifest a request waited for

    # ------------------------------------------------------------------ results (loop thread)
    def deliver(self, uri: str, version: int | None, diags: list[dict]) -> None:
        doc = self.docs.get(uri)
        if doc is None or doc.version != version:
            return  # stale: a newer version is queued (or the document closed)
        prev = self.analyzer.results.get(uri)
        self.analyzer.results[uri] = (version, diags)
        self._wake_waiters(uri, version)
        # same version, different result: caused by another file (pull clients must re-pull)
        self.publish(uri, refresh=prev is not None and prev[0] == version and prev[1] != diags)

    def republish(self, uri: str) -> None:
        if uri in self.analyzer.results:
            self.publish(uri, refresh=True)

    def combined(self, uri: str) -> list[dict] | None:
        res = self.analyzer.results.get(uri)
        doc = self.docs.get(uri)
        if res is None or doc is None or res[0] != doc.version:
            return None
        diags = list(res[1])
        path = uri_to_path(uri)
        if self._runner is not None and path and _analysed(path, doc.language_id):
            rp = self._runner.problems.get(path)
            if rp:
                diags += [to_diagnostic(p, doc.lines, self.encoding, source="stepsmith-fixtures")
                          for p in rp]
        return diags

    def publish(self, uri: str, refresh: bool = False) -> None:
        diags = self.combined(uri)
        if diags is None:
            return
        doc = self.docs.get(uri)
        if not _analysed(uri_to_path(uri), doc.language_id):
            return  # e.g. fixture JSON: only fixture-run results, pushed by the runner
        if self.pull:
            if refresh:
                self.request_refresh()
            return
        key = (doc.version, diags)
        if self._published.get(uri) == key:
            return
        self._published[uri] = key
        self.send_raw(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                      {"uri": uri, "version": doc.version, "diagnostics": diags})

    def publish_unversioned(self, uri: str, diags: list[dict]) -> None:
        """Fixture-result diagnostics on a file that is not analysed and not open (pushed)."""
        self.send_raw(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, {"uri": uri, "diagnostics": diags})

    def publish_fixture_results(self, uri: str, path: str | None = None) -> None:
        """(loop thread) Fixture-run results on an open document the server does not analyse (a
        fixture JSON file): positioned on its current text and pushed with its current version.
        Documents change only on this thread, so the version and the text the ranges were
        computed on always agree; each edit republishes for the new version."""
        runner = self._runner
        path = path or uri_to_path(uri)
        if runner is None or not path or path not in runner.problems:
            return
        with self.docs.lock:
            doc = self.docs.get(uri)
            if doc is None or _analysed(path, doc.language_id):
                return
            version, lines = doc.version, tuple(doc.lines)
        diags = runner.fixture_diagnostics(path, lines)
        key = (version, diags)
        if self._published.get(uri) == key:
            return
        self._published[uri] = key
        self.send_raw(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                      {"uri": uri, "version": version, "diagnostics": diags})

    def _fixture_results_for(self, path: str | None) -> bool:
        runner = self._runner
        return bool(runner is not None and runner.problems and path and runner.problems.get(path))

    def request_refresh(self) -> None:
        if not self.refresh_support or self._refresh_pending:
            return
        self._refresh_pending = True

        def go():
            self._refresh_pending = False
            try:
                self.protocol.send_request(T.WORKSPACE_DIAGNOSTIC_REFRESH, None)
            except Exception as exc:
                self.log_exception("diagnostic refresh failed", exc)

        self.loop.call_later(0.05, go)

    def after_manifest_check(self, path: str) -> None:
        # code lenses depend on the manifests (which steps a function implements)
        if getattr(self, "codelens_refresh", False) and not self._lens_refresh_pending:
            self._lens_refresh_pending = True

            def go():
                self._lens_refresh_pending = False
                try:
                    self.protocol.send_request(T.WORKSPACE_CODE_LENS_REFRESH, None)
                except Exception as exc:
                    self.log_exception("code lens refresh failed", exc)

            self.loop.call_later(0.2, go)

    def _wake_waiters(self, uri: str, version) -> None:
        waiters = self.analyzer.waiters.get(uri)
        if not waiters:
            return
        keep = []
        for v, fut in waiters:
            if fut.done():
                continue
            if v == version:
                fut.set_result(True)
            elif v is not None and version is not None and version > v:
                fut.set_result(False)
            else:
                keep.append((v, fut))
        self.analyzer.waiters[uri] = keep

    async def wait_analysed(self, uri: str, timeout: float = 30.0) -> bool:
        """Wait until the current version of `uri` has been analysed. False if it changed."""
        doc = self.docs.get(uri)
        if doc is None:
            return False
        version = doc.version
        res = self.analyzer.results.get(uri)
        if res is not None and res[0] == version:
            return True
        fut = asyncio.get_running_loop().create_future()
        self.analyzer.waiters.setdefault(uri, []).append((version, fut))
        if not self.analyzer.is_pending(uri):
            self.analyzer.schedule("doc", uri, front=True)
        try:
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            return False

    def awaiting_ready(self) -> bool:
        """Does a request wait for the workspace to settle? (any thread; a racy read is fine:
        the worker re-posts `check_ready` after every job while one waits)"""
        return bool(self.ready_waiters)

    def check_ready(self) -> None:
        """(loop thread) Wake the requests waiting for `wait_workspace_ready` once settled."""
        if not self.ready_waiters or not self.analyzer.settled():
            return
        waiters, self.ready_waiters = self.ready_waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(True)

    async def wait_workspace_ready(self, timeout: float = READY_TIMEOUT) -> bool:
        """Wait, without blocking the loop, until the workspace's workflows have been discovered
        and every known manifest has been checked once (`Analyzer.settled`), so that reach and
        fixture listings are complete: right after `initialized`, after a workspace-folder change,
        after a new manifest appears. Bounded: after `timeout` seconds it answers with what is
        known (False)."""
        an = self.analyzer
        if not an.discovered and not an.discovery_pending():
            an.schedule("discover", "", front=True)  # e.g. a request before `initialized`
        fut = asyncio.get_running_loop().create_future()
        # register first, then test: the worker posts check_ready after each job it finishes
        # while a waiter exists, so a job ending after this test still wakes us
        self.ready_waiters.append(fut)
        if an.settled():
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

    # ------------------------------------------------------------------ settings
    def apply_settings(self, raw: Any) -> None:
        old = self.settings
        self.settings = self.settings.merged(raw)
        if old.maxFileSize != self.settings.maxFileSize:
            for uri in self.docs.uris():
                self.analyzer.schedule("doc", uri)
        if self._runner is not None:
            self._runner.settings_changed(old)

    # ------------------------------------------------------------------ positions
    def cp_position(self, uri: str, pos: T.Position) -> tuple[Any, int, int] | None:
        """(doc, 1-based line, code point column) for an LSP position, clamped."""
        doc = self.docs.get(uri)
        if doc is None:
            return None
        line, col = doc.offset_pos(pos.line, pos.character, self.encoding)
        return doc, line + 1, col

    def lsp_span(self, doc_lines, span: Span) -> T.Range:
        r = lsp_range(span, doc_lines, self.encoding)
        return T.Range(T.Position(**r["start"]), T.Position(**r["end"]))

    def location(self, ws, loc) -> T.Location:
        """A runner Location (path, Span on that file's text in `ws`) as an LSP Location."""
        lines = ws.lines(loc.path) or [""]
        return T.Location(uri=self.open_uri(loc.path) or path_to_uri(loc.path),
                          range=self.lsp_span(lines, loc.span))

    def location_json(self, ws, loc) -> dict:
        lines = ws.lines(loc.path) or [""]
        return {"uri": self.open_uri(loc.path) or path_to_uri(loc.path),
                "range": lsp_range(loc.span, lines, self.encoding)}

    def file_lines(self, path: str) -> list[str] | None:
        text = self.read_text(path)
        if text is None:
            return None
        from stepsmith.runner.language.lines import split_lines

        return split_lines(text)


def _analysed(path: str | None, language_id: str) -> bool:
    """Documents the server checks (step files, manifests); others only get run results."""
    return bool(path) and (path.endswith(".py") or is_manifest_path(path)) or language_id == "python"


def safe(fn=None):
    """Wrap a handler: an exception is logged (window/logMessage, type Error) and answered as
    a JSON-RPC InternalError with its message: never a silent empty answer, which a client
    would take for "not ready yet". JsonRpcExceptions (InvalidParams, ...) pass unchanged."""

    def deco(fn):
        def fail(ls, exc: Exception):
            if isinstance(exc, JsonRpcException):
                return exc
            ls.log_exception(f"{fn.__name__} failed", exc)
            return JsonRpcInternalError(f"{fn.__name__} failed: {type(exc).__name__}: {exc}")

        if asyncio.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def wrapper(ls, *args, **kwargs):
                try:
                    return await fn(ls, *args, **kwargs)
                except Exception as exc:
                    raise fail(ls, exc) from exc
        else:
            @functools.wraps(fn)
            def wrapper(ls, *args, **kwargs):
                try:
                    return fn(ls, *args, **kwargs)
                except Exception as exc:
                    raise fail(ls, exc) from exc
        return wrapper

    if callable(fn):
        return deco(fn)
    return deco


def create_server() -> StepsmithServer:
    ls = StepsmithServer()
    from stepsmith.server import features

    features.register(ls)
    from stepsmith.server import pending

    pending.register(ls, safe, features._require_trust)
    return ls
