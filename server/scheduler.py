"""The coalescing analysis worker and the version gate; it knows no LSP shapes.

One worker thread takes jobs from an insertion-ordered set: a burst of edits to one document
leaves one pending job, which analyses the *latest* snapshot when it runs (coalescing); a result
whose version is no longer the document's version is dropped on the loop thread, never
published (a newer job is pending by construction). What a document's problems are is
runner/workspace/diagnostics.py's answer on a WorkspaceSnapshot; manifests get the whole-workflow
check, and step files depending on a manifest are re-validated when the manifest changes what
they may do.

Results travel as typed `DocResult`s (Problems + the lines they are positioned on) posted to the
event loop, where `deliver` drops a stale one and hands the rest to the `Sink` (the server, which
converts and publishes). The session is read through its public methods only.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from stepsmith.runner.lines import signature_fingerprint
from stepsmith.runner.model.grammar import FIXTURES_DIR
from stepsmith.runner.problems import Problem, Span
from stepsmith.runner.workspace.snapshot import Buffer
from stepsmith.server.workspace import is_manifest_path, uri_to_path

if TYPE_CHECKING:
    from stepsmith.server.session import Session

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DocResult:
    """A document's problems at one version, positioned on `lines` (that version's text), and
    the notes the last traced fixture runs give that text ("no fixture takes this branch"):
    everything computed here, on the worker; the publisher only converts."""

    uri: str
    version: int | None
    problems: tuple[Problem, ...]
    lines: tuple[str, ...]
    notes: tuple = ()  # runner.language.coverage.UntakenBranch


class Sink(Protocol):
    """Where the worker's results and events go (all called on the event loop, except
    `awaiting_ready` and `log_exception`, which any thread may call)."""

    def accepted(self, result: DocResult, refresh: bool) -> None: ...
    def notes(self, path: str, text: str) -> tuple: ...  # worker thread: coverage notes
    def manifest_checked(self, path: str) -> None: ...
    def check_ready(self) -> None: ...
    def awaiting_ready(self) -> bool: ...
    def log_exception(self, what: str, exc: BaseException) -> None: ...


class Scheduler:
    def __init__(self, session: Session, sink: Sink,
                 post: Callable[..., None] = lambda fn, *a: None) -> None:
        self.session = session
        self.sink = sink
        self.post = post  # fn, *args -> run on the event loop (thread-safe)
        self.cond = threading.Condition()
        self.pending: dict[tuple, None] = {}
        self.running: tuple | None = None
        self.fingerprints: dict[str, Any] = {}
        self.results: dict[str, DocResult] = {}  # uri -> its last accepted result
        self.waiters: dict[str, list[tuple[int | None, asyncio.Future]]] = {}
        self._thread: threading.Thread | None = None
        self._stopped = False
        self.discovered = False
        self._discover_lock = threading.Lock()
        self.attempted: set[str] = set()  # manifests whose check ran (even if it failed)
        # injected by the test-suite's server (tests/server/hooked_server.py), never set here:
        self.delay = 0.0  # seconds added to discovery and to every manifest check (a slow disk)
        self.fail_marker: str | None = None  # a step file holding it fails its analysis

    # ------------------------------------------------------------------ scheduling
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="stepsmith-analysis", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        with self.cond:
            self._stopped = True
            self.cond.notify_all()

    def schedule(self, kind: str, key: str, front: bool = False) -> None:
        job = (kind, key)
        with self.cond:
            if front and job not in self.pending:
                items = dict.fromkeys([job])
                items.update(self.pending)
                self.pending = items
            else:
                self.pending[job] = None
            self.cond.notify()
        self.start()

    def is_pending(self, uri: str) -> bool:
        with self.cond:
            return ("doc", uri) in self.pending or self.running == ("doc", uri)

    def idle(self) -> bool:
        with self.cond:
            return not self.pending and self.running is None

    def _run(self) -> None:
        while True:
            with self.cond:
                while not self.pending and not self._stopped:
                    self.cond.wait()
                if self._stopped:
                    return
                job = next(iter(self.pending))
                del self.pending[job]
                self.running = job
            try:
                if job[0] == "doc":
                    self._process_doc(job[1])
                elif job[0] == "manifest":
                    self._check_manifest(job[1], None)
                elif job[0] == "discover":
                    self.discover(force=True)
            except Exception as exc:  # never let the worker die
                self.sink.log_exception(f"analysis of {job[1]} failed", exc)
                if job[0] == "doc":
                    self._deliver_failure(job[1], exc)
            finally:
                with self.cond:
                    self.running = None
                if self.sink.awaiting_ready():  # a reach / fixtures request waits
                    self.post(self.sink.check_ready)

    # ------------------------------------------------------------------ the version gate (loop)
    def _send(self, uri: str | None, version: int | None, problems, lines, notes=()) -> None:
        if uri is not None:
            self.post(self.deliver, DocResult(uri, version, tuple(problems), tuple(lines),
                                              tuple(notes)))

    def deliver(self, result: DocResult) -> None:
        """(loop thread) Accept a result only for the document's current version."""
        if self.session.docs.version(result.uri) != result.version or result.uri not in self.session.docs:
            return  # stale: a newer version is queued (or the document closed)
        prev = self.results.get(result.uri)
        self.results[result.uri] = result
        self._wake_waiters(result.uri, result.version)
        # same version, different result: caused by another file (pull clients must re-pull)
        self.sink.accepted(result, refresh=prev is not None and prev.version == result.version
                           and (prev.problems, prev.notes) != (result.problems, result.notes))

    def current(self, uri: str) -> DocResult | None:
        """The result for the document's current version, if there is one."""
        res = self.results.get(uri)
        if res is None or uri not in self.session.docs or res.version != self.session.docs.version(uri):
            return None
        return res

    def forget(self, uri: str) -> None:
        """(loop thread) A document closed or re-opened: its result and signature fingerprint
        go (a closed file's disk text re-checks its manifests anyway), its waiters answer."""
        self.results.pop(uri, None)
        self.fingerprints.pop(uri_to_path(uri) or "", None)
        for _, fut in self.waiters.pop(uri, []):
            if not fut.done():
                fut.set_result(False)

    def _wake_waiters(self, uri: str, version) -> None:
        waiters = self.waiters.get(uri)
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
        self.waiters[uri] = keep

    async def wait_analysed(self, uri: str, timeout: float = 30.0) -> bool:
        """Wait until the current version of `uri` has been analysed. False if it changed."""
        if uri not in self.session.docs:
            return False
        version = self.session.docs.version(uri)
        if self.current(uri) is not None:
            return True
        fut = asyncio.get_running_loop().create_future()
        self.waiters.setdefault(uri, []).append((version, fut))
        if not self.is_pending(uri):
            self.schedule("doc", uri, front=True)
        try:
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            return False

    # ------------------------------------------------------------------ jobs
    def _deliver_failure(self, uri: str, exc: Exception) -> None:
        snap = self.session.docs.snapshot(uri)
        if snap is None:
            return
        p = Problem(code="SS003", message=f"stepsmith could not analyse this file "
                    f"({type(exc).__name__}: {exc}); see the server log", span=Span(1, 0, 1, 1))
        self._send(uri, snap.version, [p], snap.lines)

    def _process_doc(self, uri: str) -> None:
        snap = self.session.docs.snapshot(uri)
        if snap is None:
            return
        path = uri_to_path(uri)
        if is_manifest_path(path):
            self._check_manifest(path, snap)
        elif (path or "").endswith(".py") or snap.language_id == "python":
            if path:
                self.session.model.adopt_nearest(path)
            self._first_checks(path)
            self._analyze_step(snap, path)
        else:
            self._send(uri, snap.version, self._other_problems(path, snap), snap.lines)

    def _other_problems(self, path: str | None, snap) -> list[Problem]:
        """A document that is neither a manifest nor a step file: a fixture file has what
        `check` reports for it (runner/app/check.py), on this version's text; others none."""
        from stepsmith.runner.app.check import fixture_file_problems

        ws = self.session.snapshot()
        buf = ws.buffer(path) if path else None
        if buf is None or buf.version != snap.version:
            return []  # changed meanwhile: dropped at the gate, the newer job answers
        return fixture_file_problems(ws, path) or []

    def discover(self, force: bool = False) -> None:
        """Find the manifests of the workspace folders (once, or again when forced)."""
        if self.discovered and not force:
            return
        with self._discover_lock:
            if self.discovered and not force:
                return
            try:
                if self.delay:
                    time.sleep(self.delay)
                new = self.session.model.discover()
            except Exception as exc:
                self.sink.log_exception("workflow discovery failed", exc)
                new = []
            self.discovered = True
        for p in new:
            self.schedule("manifest", p)

    def settled(self) -> bool:
        """Workflows discovered (no discovery queued or running), every known manifest
        checked at least once, and no manifest waiting for a re-check: reach / fixture
        listings are complete and read the texts there are now. Any thread."""
        with self.cond:
            if not self.discovered or ("discover", "") in self.pending \
                    or self.running == ("discover", ""):
                return False
            # a manifest queued again (its buffer closed, its file changed) was last checked
            # on a text that is gone: the index answers for it once the new check is in
            if any(kind == "manifest" for kind, _ in (*self.pending, self.running or ("", ""))):
                return False
        return self.session.model.index.all_checked(self.attempted)

    def discovery_pending(self) -> bool:
        with self.cond:
            return ("discover", "") in self.pending or self.running == ("discover", "")

    def _first_checks(self, path: str | None) -> None:
        """Check the step file's own workflow (the manifests at or above it) before the file,
        so its first diagnostics already know which steps use it (no flash of a wrong
        reach-dependent error); the other unchecked manifests are queued after it, and a
        change of context they bring re-validates the file."""
        # no discover() here: the queued discovery job finds the rest; the file's own workflow
        # (adopted upward) is all its first diagnostics need
        index = self.session.model.index
        unchecked = {m.path for m in index.manifests.values() if not m.checked}
        todo = []
        for key in index.nearest_first(path):
            if key not in unchecked:
                continue
            if path and path.startswith(os.path.dirname(key) + os.sep):
                todo.append(key)
            else:
                self.schedule("manifest", key)
        for path in todo:
            with self.cond:
                self.pending.pop(("manifest", path), None)
            try:
                self._check_manifest(path, None)
            except Exception as exc:
                self.sink.log_exception(f"check of {path} failed", exc)
                self.session.model.record_check(path, None, None)

    def _analyze_step(self, snap, path: str | None) -> None:
        from stepsmith.runner.workspace.diagnostics import step_problems

        if self.fail_marker is not None and self.fail_marker in snap.text:
            raise RuntimeError("deliberate analysis failure (injected)")
        ws = self.session.snapshot()
        problems = step_problems(ws, path, Buffer(snap.text, snap.version, snap.lines, snap.language_id))
        notes = self.sink.notes(path, snap.text) if path else ()
        self._signature_changes(ws, path, snap.text)
        # last: once posted, the loop wants the GIL; work done after would delay it
        self._send(snap.uri, snap.version, problems, snap.lines, notes)

    def _signature_changes(self, ws, path: str | None, text: str) -> None:
        """A changed function signature re-checks the manifests naming this file (a file no
        manifest names has nothing to re-check: it keeps no fingerprint)."""
        using = self.session.model.manifests_using(path) if path else []
        if not using or len(text) > ws.max_file_size:
            self.fingerprints.pop(path, None)
            return
        fp = signature_fingerprint(text, bool(ws.index.crossfile(path)))
        old = self.fingerprints.get(path)
        self.fingerprints[path] = fp
        if old is not None and old != fp:
            for m in using:
                self.schedule("manifest", m.path)

    def _check_manifest(self, path: str, snap) -> None:
        try:
            if self.delay:
                time.sleep(self.delay)
            self._check_manifest_now(path, snap)
        finally:
            if path in self.session.model.manifests:  # not for one forgotten meanwhile
                self.attempted.add(path)

    def forget_manifest(self, path: str) -> None:
        """(loop thread) A manifest left the index: nothing kept under its path."""
        self.attempted.discard(path)

    def _check_manifest_now(self, path: str, snap) -> None:
        from stepsmith.runner.workspace.diagnostics import (
            check_manifest,
            manifest_problems,
            too_large,
        )

        session = self.session
        ws = session.snapshot()
        buf, uri = ws.buffer(path), session.open_uri(path)
        check = check_manifest(ws, path)
        if check is None:  # its buffer is over stepsmith.maxFileSize
            p = too_large(len(buf.text), ws.max_file_size, "SM007")
            self._send(uri, buf.version, [p], buf.lines)
            return
        changed = session.model.record_check(path, check, buf.version if buf else None)
        if buf is not None and uri is not None:
            self._send(uri, buf.version, manifest_problems(check, path), buf.lines)
        for key in changed:  # their context or their cross-file problems changed
            u = session.open_uri(key)
            if u is not None:
                self.schedule("doc", u)
        fixtures = os.path.join(os.path.dirname(path), FIXTURES_DIR) + os.sep
        with session.docs.lock:  # (the loop opens and closes documents meanwhile)
            uris = session.docs.uris()
        for u in uris:  # the open fixture files its steps decide about
            if (uri_to_path(u) or "").startswith(fixtures):
                self.schedule("doc", u)
        self.post(self.sink.manifest_checked, path)
