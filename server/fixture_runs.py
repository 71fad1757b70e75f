"""Running fixtures from the editor: commands, run-on-save/type, code lens, result diagnostics.

Runs use the core's engine (runner/app: the workflow loaded on the buffers, its cases, one
fresh sandbox per fixture, traced) on a small thread pool, never on the analysis worker, so
they never delay diagnostics. Which run is current is the core's book-keeping
(runner/app/generations.py): a newer edit/save supersedes a file's older runs, which stop,
their sandboxes killed, and publish nothing. This module keeps progress and notifications.
"""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from lsprotocol import types as T
from stepsmith.runner.app.blocking import step_blocked
from stepsmith.runner.app.case_run import run_cases
from stepsmith.runner.app.generations import Generation, Generations
from stepsmith.runner.app.suite import workflow_cases
from stepsmith.runner.app.workflow import LoadedWorkflow, load_workflow
from stepsmith.runner.coverage.static import analyse
from stepsmith.runner.workspace.fixtures import (
    fixture_files,
    folder_manifests,
    owners,
    step_of,
)
from stepsmith.runner.workspace.index import code_target
from stepsmith.server.publish import Host
from stepsmith.server.run_replies import (
    RunReply,
    error_reply,
    fixture_target,
    record_reply,
    result_reply,
    unavailable_replies,
    wire,
)
from stepsmith.server.run_results import RunResults
from stepsmith.server.workspace import norm, path_to_uri, uri_to_path


class RunHost(Host, Protocol):
    """What the runs use of the server that owns them (server.StepsmithServer), named here so
    the server's parts never import the module that assembles them."""

    publisher: Any
    sandbox_probe: Any
    work_done_progress: Any

    def show_message(self, message: str, msg_type: Any = ...) -> None: ...


class Runner:
    def __init__(self, ls: RunHost) -> None:
        self.ls = ls
        self.workers = max(1, min(4, os.cpu_count() or 1))  # the run pool's threads
        self.pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="stepsmith-run")
        self.lock = threading.Lock()
        self.runs = Generations()  # which run of each step file is current, their sandboxes
        self.groups = self.runs.groups  # sandbox groups of the runs in progress
        self.results = RunResults()  # last results per step, fixture, file
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._sandbox: tuple[bool, str] | None = None
        self._shown_unavailable = False  # window/showMessage once per session
        from stepsmith.server.live import LiveState

        self.live = LiveState()  # the last traced runs: coverage, values, stale marks
        self._spares = False
        self.started = 0  # fixture invocations started (the test hooks report it)
        # called with (manifest, step id, step file, text, CaseResults) after each finished run
        # of a step's fixtures; the mutants refresh takes them as its baseline
        self.listeners: list = []
        self.file_tasks: dict[str, asyncio.Future] = {}  # step file -> its latest run

    # ------------------------------------------------------------------ lifecycle
    def shutdown(self) -> None:
        for t in list(self._timers.values()):
            t.cancel()
        self._timers.clear()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.runs.kill_all()  # and the sandboxes already running
        if self._spares:
            from stepsmith.runner.sandbox import spares

            spares.disable()

    def _ensure_spares(self) -> None:
        """Sandboxes started ahead of demand for live runs, once the sandbox is known to work:
        enough for a step's fixtures to start at once (bench/live.py: 5 fixtures, p95 from
        ~240 ms with 3 spares to ~95 ms with 6); each still runs exactly one fixture
        (sandbox/spares.py). An idle spare is a blocked interpreter (~10 MiB)."""
        if self._spares:
            return
        self._spares = True
        try:
            from stepsmith.runner.sandbox import spares

            spares.enable(max(6, 2 * self.workers + 2))
        except Exception as exc:  # fresh sandboxes then, as before
            self.ls.log_exception("could not start spare sandboxes", exc)

    def settings_changed(self, old) -> None:
        if not self.ls.session.settings.runOnType:
            for t in self._timers.values():
                t.cancel()
            self._timers.clear()

    def sandbox_status(self) -> tuple[bool, str]:
        if self._sandbox is None:
            try:
                probe = self.ls.sandbox_probe
                if probe is None:
                    from stepsmith.runner.sandbox import sandbox_available as probe

                self._sandbox = tuple(probe())
            except Exception as exc:  # the runner is not importable: still serve diagnostics
                self._sandbox = (False, f"the stepsmith runner is unavailable: {exc}")
        return self._sandbox

    # ------------------------------------------------------------------ disk questions
    # (each runs on the run pool: listing folders and parsing manifests never on the loop)
    async def _off_loop(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    @staticmethod
    def _steps_with_fixtures(snapshot, path: str) -> list[tuple[str, str]]:
        return [(st.manifest, st.id) for st in snapshot.steps_using(path)
                if st.id and fixture_files(st.manifest, st.id)]

    @staticmethod
    def _fixture_owner(snapshot, fixture_path: str) -> tuple[str, str] | None:
        """The manifest declaring the fixture's step (the first by name when several do), else
        the folder's first manifest (which reports the fixture's unknown step); None when no
        manifest is next to its fixtures/ folder."""
        found = owners(snapshot, fixture_path)
        if found:
            return found[0]
        where = step_of(fixture_path)
        manifests = folder_manifests(where[0]) if where else []
        return (norm(manifests[0]), where[1]) if manifests else None

    # ------------------------------------------------------------------ triggers
    def on_save(self, uri: str) -> None:
        path = uri_to_path(uri)
        if not path:
            return
        gen = self.runs.bump(path)
        self.file_tasks[path] = asyncio.ensure_future(self._run_file(gen, from_buffer=False))

    def on_type(self, uri: str) -> None:
        path = uri_to_path(uri)
        if not path or not path.endswith(".py"):
            return
        gen = self.runs.bump(path)  # cancels any older run of this file
        old = self._timers.pop(uri, None)
        if old is not None:
            old.cancel()
        delay = max(0, self.ls.session.settings.runOnTypeDelayMs) / 1000

        def fire():
            self._timers.pop(uri, None)
            self.file_tasks[path] = asyncio.ensure_future(self._run_file(gen, from_buffer=True))

        self._timers[uri] = self.ls.loop.call_later(delay, fire)

    async def _run_file(self, gen: Generation, from_buffer: bool) -> None:
        try:
            steps = await self._off_loop(self._steps_with_fixtures, self.ls.session.snapshot(),
                                         gen[0])
            for mp, sid in steps:
                if not self.runs.current(gen):
                    return
                await self.run_step(mp, sid, gen=gen, from_buffer=from_buffer)
        except Exception as exc:
            self.ls.log_exception("background fixture run failed", exc)

    # ------------------------------------------------------------------ commands
    async def run_step_command(self, manifest_uri: str, step_id: str, repeat: int = 1) -> dict:
        mp = uri_to_path(manifest_uri)
        if not mp:
            return {"results": [], "error": f"not a file URI: {manifest_uri}"}
        if self.ls.session.model.add_manifest(mp):  # a manifest outside the workspace folders
            self.ls.scheduler.schedule("manifest", mp)
        dirty = await asyncio.get_running_loop().run_in_executor(self.pool, self._dirty, mp)
        results = await self.run_step(mp, step_id, from_buffer=dirty, repeat=repeat)
        return {"results": wire(results)}

    def _dirty(self, manifest_path: str) -> bool:
        """An open buffer of this workflow (manifest or step file) differs from its file: a
        command run (code lens, test explorer) runs what the editor shows, like run-on-type."""
        from stepsmith.runner.safeio import read_workspace_text

        folder = os.path.dirname(manifest_path) + os.sep
        for uri in self.ls.session.docs.uris():
            path = uri_to_path(uri)
            if not path or not path.startswith(folder) or not path.endswith((".py", ".yaml")):
                continue
            text = self.ls.session.buffer_text(path)
            if text is not None and text != read_workspace_text(path):
                return True
        return False

    async def run_fixture_command(self, fixture_uri: str, repeat: int = 1) -> dict:
        fp = uri_to_path(fixture_uri)
        if not fp:
            return {"results": []}
        snapshot = self.ls.session.snapshot()
        owner = await self._off_loop(self._fixture_owner, snapshot, fp)
        if owner is None:
            target = await self._off_loop(fixture_target, snapshot, fp, self.ls.session.encoding)
            return {"results": wire([error_reply(
                Path(fp).stem, fixture_uri,
                "no workflow manifest next to this fixture's fixtures/ folder", target)])}
        manifest, step_id = owner
        dirty = await self._off_loop(self._dirty, manifest)
        results = await self.run_step(manifest, step_id, only=norm(fp), from_buffer=dirty,
                                      repeat=repeat)
        return {"results": wire(results)}

    async def record_command(self, manifest_uri: str, step_id: str, name: str, inputs: Any,
                             at: str | None) -> dict:
        mp = uri_to_path(manifest_uri)
        snapshot, enc = self.ls.session.snapshot(), self.ls.session.encoding
        res = await self._off_loop(record_reply, mp, step_id, name, inputs, at,
                                   self.sandbox_status,
                                   lambda path: fixture_target(snapshot, path, enc))
        if res.outcome == "recorded":
            self._notify(mp, step_id, [res])
        return {"results": wire([res])}

    # ------------------------------------------------------------------ running
    @staticmethod
    def _load(snapshot, manifest_path: str, from_buffer: bool) -> LoadedWorkflow:
        """The runnable workflow as the core loads it, checked on the editor's buffers when
        `from_buffer` (the path as the index spells it: results are matched by it)."""
        read = snapshot.buffer_text if from_buffer else None
        return load_workflow(manifest_path, read_text=read, resolve=False)

    def _done(self, cr, snapshot, replies: dict, progress) -> None:
        """(run pool, as each case ends) its reply, its target positioned on `snapshot`'s text
        of the fixture (read here, off the loop); the traced text analysed here too, so the
        editor's coverage (asked on the loop for the same text) finds it memoised."""
        target = fixture_target(snapshot, cr.case.path and str(cr.case.path),
                                self.ls.session.encoding)
        replies[cr.case.id] = result_reply(cr, target)
        if cr.coverage is not None and cr.code is not None:
            _warm_shape(cr.code[1], getattr(cr.case.workflow.check, "interpreter", None))
        progress(cr)

    async def run_step(self, manifest_path: str, step_id: str, *, gen: Generation | None = None,
                       from_buffer: bool = False,
                       only: str | None = None, repeat: int = 1) -> list[RunReply]:
        ls = self.ls
        loop = asyncio.get_running_loop()
        ok, reason = await loop.run_in_executor(None, self.sandbox_status)
        fixtures = await self._off_loop(fixture_files, manifest_path, step_id)
        if only is not None:
            fixtures = [p for p in fixtures if norm(p) == only]
        if not ok:
            if not self._shown_unavailable:
                self._shown_unavailable = True
                ls.show_message(f"stepsmith: running fixtures is unavailable — {reason}. "
                                "Diagnostics still work.", T.MessageType.Warning)
            results = await self._off_loop(unavailable_replies, ls.session.snapshot(), fixtures, reason,
                                           ls.session.encoding)
            if self.runs.current(gen):
                await self._finish(manifest_path, step_id, results, only)
            return results
        token = None
        if ls.session.client.progress and fixtures:
            token = f"stepsmith-run-{uuid.uuid4()}"
            try:
                await ls.work_done_progress.create_async(token)
                ls.work_done_progress.begin(token, T.WorkDoneProgressBegin(
                    title=f"stepsmith: {step_id}", message=f"running {len(fixtures)} fixture(s)",
                    percentage=0, cancellable=False))
            except Exception:
                token = None
        try:
            prep = await self._off_loop(self._prepare, ls.session.snapshot(), manifest_path,
                                        step_id, from_buffer, only)
            if prep is None:
                # half-typed: no run starts; the last results stay, shown stale
                self.live.mark_stale(manifest_path, step_id)
                ls.publisher.lenses_changed(delay=0)
                return []
            lw, cases, step_path, ran_text = prep
            if gen is not None:  # the live loop (typing, saving): spares cut its latency
                self._ensure_spares()
            group = self.runs.start(gen)
            snapshot = ls.session.snapshot()
            replies: dict[str, RunReply] = {}
            stop = threading.Event()
            done = [0]

            def report(cr) -> None:  # (loop) the progress of the run's cases
                done[0] += 1
                if token and self.runs.current(gen):
                    ls.work_done_progress.report(token, T.WorkDoneProgressReport(
                        message=f"{done[0]}/{len(cases)} {cr.case.case}: {cr.outcome}",
                        percentage=int(100 * done[0] / max(1, len(cases)))))

            def progress(cr) -> None:
                loop.call_soon_threadsafe(report, cr)

            def run():  # the engine's runs, each a fresh sandbox (or spare) in the run pool
                return run_cases(cases, values=True, repeat=repeat, group=group, stop=stop,
                                 executor=self.pool, on_done=lambda cr: self._done(
                                     cr, snapshot, replies, progress))

            with self.lock:  # sandbox invocations asked for (the test hooks report it)
                self.started += max(1, repeat) * len(cases)
            try:
                case_results = await loop.run_in_executor(None, run)
            except asyncio.CancelledError:  # $/cancelRequest, shutdown: end the sandboxes too
                stop.set()
                group.kill()
                raise
            finally:
                self.runs.end(gen, group)
            if group.killed or not self.runs.current(gen):
                return []  # superseded by a newer edit, or shut down: publish nothing
            results = [replies[cr.case.id] for cr in case_results]
            if not from_buffer:  # saved code: pending changes, as `stepsmith test` writes them
                from stepsmith.server.handlers.pending import sync_results

                await loop.run_in_executor(self.pool, sync_results, case_results, results)
            if step_path and only is None:
                self.live.record(manifest_path, step_id, step_path,
                                 lw.step(step_id).code_ref.function, ran_text, case_results)
                for listen in self.listeners:
                    listen(manifest_path, step_id, step_path, ran_text, case_results)
            await self._finish(manifest_path, step_id, results, only)
            return results
        finally:
            if token:
                ls.work_done_progress.end(token, T.WorkDoneProgressEnd(message="done"))

    def _prepare(self, snapshot, manifest_path: str, step_id: str, from_buffer: bool,
                 only: str | None):
        """(run pool) The workflow loaded (the step file's buffer as its text to run, when
        `from_buffer`), the step's cases, the step file and the text the runs execute; None
        when a half-typed buffer blocks the run."""
        lw = self._load(snapshot, manifest_path, from_buffer)
        if from_buffer and step_blocked(lw, step_id):
            return None
        # every fixture of the step, a blocked one as itself (its reply says by what)
        cases = [c for c in workflow_cases(lw, collapse=False) if c.step_id == step_id]
        if only is not None:
            cases = [c for c in cases if c.path is not None and norm(c.path) == only]
        step = lw.step(step_id) if lw.workflow is not None else None
        step_path = code_target(manifest_path, step.code_ref) if step is not None else None
        source = snapshot.buffer_text(step_path) if from_buffer and step_path else None
        if source is not None and step is not None and step.code_ref is not None:
            lw.texts[(lw.dir / step.code_ref.path).resolve()] = source  # the buffer runs
        ran_text = source if source is not None else (
            snapshot.read_text(step_path) if step_path else None)
        return lw, cases, step_path, ran_text

    async def _finish(self, manifest_path: str, step_id: str, results: list[RunReply],
                      only: str | None) -> None:
        ls = self.ls
        changed = await self._off_loop(self.results.finish, ls.session.snapshot(), manifest_path,
                                       step_id, results, only)
        for path in changed:
            ls.publisher.fixture_results(path)
        self._notify(manifest_path, step_id, results)
        ls.publisher.lenses_changed(delay=0)
        ls.publisher.inlays_changed()

    def _notify(self, manifest_path: str, step_id: str, results: list[RunReply]) -> None:
        ls = self.ls
        ls.send_raw("stepsmith/fixtureResults", {
            "manifestUri": ls.session.open_uri(manifest_path) or path_to_uri(manifest_path),
            "stepId": step_id, "results": wire(results)})


def _warm_shape(source: str, interp=None) -> None:
    try:
        analyse(source, interp)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
