"""Analysis off the event loop, on snapshots, coalesced, version-checked.

One worker thread takes jobs from an insertion-ordered set: a burst of edits to one document
leaves one pending job, which analyses the *latest* snapshot when it runs (coalescing); a result
whose version is no longer the document's version is dropped on the loop thread, never
published (a newer job is pending by construction). What a document's problems are is
runner/workspace/diagnostics.py's answer on a WorkspaceSnapshot; manifests get the whole-workflow
check, and step files depending on a manifest are re-validated when the manifest changes what
they may do.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import TYPE_CHECKING, Any

from stepsmith.runner.language.lines import function_spans
from stepsmith.runner.problems import Problem, Span
from stepsmith.runner.workspace.snapshot import Buffer
from stepsmith.server.convert import to_diagnostic
from stepsmith.server.workspace import is_manifest_path, uri_to_path

if TYPE_CHECKING:
    from stepsmith.server.server import StepsmithServer

log = logging.getLogger(__name__)
_TEST_HOOKS = os.environ.get("STEPSMITH_TEST_HOOKS") == "1"  # the test-suite's failure injection
# test-suite only: seconds added to workflow discovery and to every manifest check (start-up races)
_TEST_SLOW = float(os.environ.get("STEPSMITH_TEST_SLOW_ANALYSIS") or 0) if _TEST_HOOKS else 0.0


class Analyzer:
    def __init__(self, ls: StepsmithServer) -> None:
        self.ls = ls
        self.cond = threading.Condition()
        self.pending: dict[tuple, None] = {}
        self.running: tuple | None = None
        self.fingerprints: dict[str, Any] = {}
        self.results: dict[str, tuple[int | None, list[dict]]] = {}  # uri -> (version, diags)
        self.waiters: dict[str, list[tuple[int | None, asyncio.Future]]] = {}
        self._thread: threading.Thread | None = None
        self._stopped = False
        self.discovered = False
        self._discover_lock = threading.Lock()
        self.attempted: set[str] = set()  # manifests whose check ran (even if it failed)

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
                self.ls.log_exception(f"analysis of {job[1]} failed", exc)
                if job[0] == "doc":
                    self._deliver_failure(job[1], exc)
            finally:
                with self.cond:
                    self.running = None
                if self.ls.awaiting_ready():  # a reach / fixtures request waits
                    self._post(self.ls.check_ready)

    # ------------------------------------------------------------------ jobs
    def _post(self, fn, *args) -> None:
        loop = self.ls.loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:
            pass

    def _deliver_failure(self, uri: str, exc: Exception) -> None:
        snap = self.ls.docs.snapshot(uri)
        if snap is None:
            return
        p = Problem(code="SS003", message=f"stepsmith could not analyse this file "
                    f"({type(exc).__name__}: {exc}); see the server log", span=Span(1, 0, 1, 1))
        diags = [to_diagnostic(p, snap.lines, self.ls.encoding)]
        self._post(self.ls.deliver, uri, snap.version, diags)

    def _process_doc(self, uri: str) -> None:
        snap = self.ls.docs.snapshot(uri)
        if snap is None:
            return
        path = uri_to_path(uri)
        if is_manifest_path(path):
            self._check_manifest(path, snap)
        elif (path or "").endswith(".py") or snap.language_id == "python":
            if path:
                self.ls.model.adopt_nearest(path)
            self._first_checks(path)
            self._analyze_step(snap, path)
        else:
            self._post(self.ls.deliver, uri, snap.version, [])

    def discover(self, force: bool = False) -> None:
        """Find the manifests of the workspace folders (once, or again when forced)."""
        if self.discovered and not force:
            return
        with self._discover_lock:
            if self.discovered and not force:
                return
            try:
                if _TEST_SLOW:
                    import time

                    time.sleep(_TEST_SLOW)
                new = self.ls.model.discover()
            except Exception as exc:
                self.ls.log_exception("workflow discovery failed", exc)
                new = []
            self.discovered = True
        for p in new:
            self.schedule("manifest", p)

    def settled(self) -> bool:
        """Workflows discovered (no discovery queued or running) and every known manifest
        checked at least once: reach / fixture listings are complete. Any thread."""
        with self.cond:
            if not self.discovered or ("discover", "") in self.pending \
                    or self.running == ("discover", ""):
                return False
        return self.ls.model.index.all_checked(self.attempted)

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
        index = self.ls.model.index
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
                self.ls.log_exception(f"check of {path} failed", exc)
                self.ls.model.record_check(path, None, None)

    def _analyze_step(self, snap, path: str | None) -> None:
        from stepsmith.runner.workspace.diagnostics import step_problems

        ls = self.ls
        if _TEST_HOOKS and "# stepsmith-test: crash-analysis" in snap.text:
            raise RuntimeError("deliberate analysis failure (test hook)")
        ws = ls.workspace_snapshot()
        problems = step_problems(ws, path, Buffer(snap.text, snap.version, snap.lines, snap.language_id))
        diags = [to_diagnostic(p, snap.lines, ls.encoding) for p in problems]
        self._post(ls.deliver, snap.uri, snap.version, diags)
        # cross-file: a changed function signature re-checks the manifests naming this file
        if path and len(snap.text) <= ws.max_file_size:
            fp = self._fingerprint(function_spans(snap.text, snap.lines), snap.lines,
                                   bool(ws.index.crossfile(path)))
            old = self.fingerprints.get(path)
            self.fingerprints[path] = fp
            if old is not None and old != fp:
                for m in ls.model.manifests_using(path):
                    self.schedule("manifest", m.path)

    def _fingerprint(self, functions, lines, with_lines: bool) -> tuple:
        out = []
        for f in functions:
            header = []
            for i in range(f.line - 1, min(f.end_line, f.line + 20)):
                header.append(lines[i].rstrip())
                if lines[i].rstrip().endswith(":"):
                    break
            out.append((f.name, "\n".join(header), f.line if with_lines else 0))
        return tuple(out)

    def _check_manifest(self, path: str, snap) -> None:
        try:
            if _TEST_SLOW:
                import time

                time.sleep(_TEST_SLOW)
            self._check_manifest_now(path, snap)
        finally:
            self.attempted.add(path)

    def _check_manifest_now(self, path: str, snap) -> None:
        from stepsmith.runner.workspace.diagnostics import (
            check_manifest,
            manifest_problems,
            too_large,
        )

        ls = self.ls
        ws = ls.workspace_snapshot()
        buf, uri = ws.buffer(path), ls.open_uri(path)
        check = check_manifest(ws, path)
        if check is None:  # its buffer is over stepsmith.maxFileSize
            p = too_large(len(buf.text), ws.max_file_size, "SM007")
            self._post(ls.deliver, uri, buf.version, [to_diagnostic(p, buf.lines, ls.encoding)])
            return
        changed = ls.model.record_check(path, check, buf.version if buf else None)
        if buf is not None and uri is not None:
            diags = [to_diagnostic(p, buf.lines, ls.encoding) for p in manifest_problems(check, path)]
            self._post(ls.deliver, uri, buf.version, diags)
        for key in changed:  # their context or their cross-file problems changed
            u = ls.open_uri(key)
            if u is not None:
                self.schedule("doc", u)
        self._post(ls.after_manifest_check, path)
