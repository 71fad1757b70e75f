"""stepsmith/mutants {uri} -> runner.app.mutants for a step file (or a manifest): the records
`stepsmith mutants --format json` prints, each with its LSP `range`. Survivors become
Information diagnostics at the changed range (source `stepsmith-mutants`) and a code lens per
step ("2 mutants survive").

A run goes in the background: the orchestration on a thread of its own, the fixtures on the
run pool (fixture_runs.Runner.pool), every sandbox in a group; `$/cancelRequest` or a newer
run for the same file ends it (nothing is published for it). A step file whose mutants were
asked is watched: saving it, or a file of its workflow (a fixture recorded, a manifest
edited), runs them again, and `stepsmith/mutantResults` says the records changed. The
diagnostics are shown only on the text they were computed for: typing hides them until the
next run.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types as T
from stepsmith.server.handlers.common import (
    command_args,
    invalid_params,
    param,
    require_trust,
    safe,
)
from stepsmith.server.workspace import path_to_uri, uri_to_path

SOURCE = "stepsmith-mutants"
INFORMATION = 3


@dataclass
class _Last:
    text: str  # the step file's text the records were computed on
    doc: dict  # MutantsReport.to_json()
    steps: dict[tuple[str, str], int] = field(default_factory=dict)  # (manifest, step) -> alive


class MutantRuns:
    def __init__(self, ls) -> None:
        self.ls = ls
        self.last: dict[str, _Last] = {}  # step file path -> its last finished run
        self.running: dict[str, tuple[threading.Event, object]] = {}  # path -> (stop, group)
        self.watched: set[str] = set()
        # step file -> {(manifest, step id, case): (text run, CaseResult)}: the editor's latest
        # runs of its fixtures (fixture_runs.Runner.listeners), a refresh's baseline
        self.saved: dict[str, dict[tuple[str, str, str], tuple]] = {}
        # step file -> the baseline its last finished run judged on (MutantsReport.baselines):
        # the next run judges on it while its own is worked out, and keeps those verdicts only
        # if the two are the same (app/mutant_baseline.py)
        self.baselines: dict[str, dict] = {}
        self._lock = threading.Lock()
        self._servers = None  # runner.app.mutant_judge.Servers: kept from one run to the next
        # the threads every run's rounds wait for their fork servers on (as many as the run
        # pool's: runs of several files at once share them), apart from the run pool, which
        # the run-on-save a refresh checks its guessed baseline against needs meanwhile
        self._rounds = None

    def rounds(self):
        with self._lock:
            if self._rounds is None:
                self._rounds = ThreadPoolExecutor(self.ls.runner.workers,
                                                  thread_name_prefix="stepsmith-mutant")
            return self._rounds

    def servers(self):
        """The fork servers every mutants run of this editor judges in: kept between runs
        (idle, a blocked interpreter each, at most two), so a refresh after a save does not
        wait for one to start."""
        with self._lock:
            if self._servers is None:
                from stepsmith.runner.app.mutant_judge import Servers

                self._servers = Servers([])
                atexit.register(self._servers.close)
            return self._servers

    def _ran(self, manifest: str, step_id: str, step_path: str, text, cases: list) -> None:
        """A finished run of a step's fixtures in the editor (on the server's loop)."""
        if text is None or step_path is None:
            return
        key = str(Path(manifest).resolve())
        with self._lock:
            runs = self.saved.setdefault(str(Path(step_path).resolve()), {})
            for lc in cases:
                runs[(key, step_id, lc.case.case)] = (text, lc)

    def _baseline(self, path: str, wait, loop):
        """What `MutantsRequest.ran` answers: the editor's runs of the file's fixtures, once
        its latest run `wait` (a task on `loop`) has ended."""
        def ran() -> dict:
            if wait is not None and not wait.done():
                async def settle() -> None:
                    await asyncio.wait([wait])

                try:
                    asyncio.run_coroutine_threadsafe(settle(), loop).result(timeout=120)
                except Exception:  # noqa: BLE001, S110 - then the mutants run their own baseline
                    pass
            with self._lock:
                return dict(self.saved.get(str(Path(path).resolve()), {}))

        return ran

    # ------------------------------------------------------------------ running
    async def run(self, path: str, progress: bool = True, wait=None) -> dict:
        """`wait`: the editor's run of this file's fixtures (on save, or on type of the text
        saved), whose runs are the baseline when they ran this text."""
        from stepsmith.runner.sandbox.process import Group

        ls = self.ls
        if self._ran not in ls.runner.listeners:
            ls.runner.listeners.append(self._ran)
        self.cancel(path)
        stop, group = threading.Event(), Group()
        self.running[path] = (stop, group)
        ls.runner.groups.add(group)  # the server's shutdown kills its sandboxes too
        ws = ls.session.snapshot()
        text = ws.read_text(path)
        texts = {path: text} if text is not None and path.endswith(".py") else {}
        token = await self._begin(path) if progress else None
        loop = asyncio.get_running_loop()

        def report(done: int, total: int) -> None:
            if token is not None:
                ls.on_loop(lambda: ls.work_done_progress.report(token, T.WorkDoneProgressReport(
                    message=f"{done}/{total} mutants", percentage=int(100 * done / max(1, total)))))

        try:
            doc = await loop.run_in_executor(None, self._compute, path, texts, stop, group,
                                             report, self._baseline(path, wait, loop))
        except asyncio.CancelledError:
            stop.set()
            group.kill()
            raise
        finally:
            if self.running.get(path, (None,))[0] is stop:
                del self.running[path]
            ls.runner.groups.discard(group)
            if token is not None:
                ls.work_done_progress.end(token, T.WorkDoneProgressEnd(message="done"))
        if stop.is_set():
            return {"uri": path_to_uri(path), "cancelled": True, "mutants": []}
        self.watched.add(path)
        if path.endswith(".py") and text is not None:
            self.last[path] = _Last(text, doc, self._alive(doc))
            self._publish(path)
        uri = ls.session.open_uri(path) or path_to_uri(path)
        answer = {"uri": uri, **doc}
        ls.send_raw("stepsmith/mutantResults", {"uri": uri, "summary": doc["summary"]})
        return answer

    def _compute(self, path: str, texts: dict, stop, group, report, ran) -> dict:
        from stepsmith.runner.app.mutants import MutantsRequest, run_mutants
        from stepsmith.runner.sandbox.spares import held

        runs = self.ls.runner
        runs._ensure_spares()
        # no spare refills while the mutants judge: their runs take none, and a refill
        # (a sandbox's start-up) competes with them for the CPU
        with held():
            rep = run_mutants(MutantsRequest(paths=[path], texts=texts, ran=ran,
                                             guess=self.baselines.get(path)),
                              on_progress=report, stop=stop, pool=runs.pool, group=group,
                              servers=self.servers(), rounds=self.rounds())
        if not stop.is_set():
            self.baselines[path] = rep.baselines
        doc = rep.to_json()
        for m in doc["mutants"]:  # the records name the file as shown from here: say which
            m["uri"] = path_to_uri(str(Path(m["path"]).resolve()))
        lines = (texts.get(path) or "").splitlines() or [""]
        self._ranges(doc, path, lines)
        return doc

    def _ranges(self, doc: dict, path: str, lines) -> None:
        from stepsmith.runner.problems import Span
        from stepsmith.server.convert import lsp_range

        for m in doc["mutants"]:
            if Path(m["path"]).resolve() == Path(path).resolve():
                m["range"] = lsp_range(Span(m["line"], m["column"], m["end_line"],
                                            m["end_column"]), lines, self.ls.session.encoding)

    @staticmethod
    def _alive(doc: dict) -> dict[tuple[str, str], int]:
        out: dict = {}
        for m in doc["mutants"]:
            for s in m["steps"]:
                out[s] = out.get(s, 0) + (m["status"] == "survived")
        return out

    async def _begin(self, path: str) -> str | None:
        ls = self.ls
        if not ls.session.client.progress:
            return None
        token = f"stepsmith-mutants-{uuid.uuid4()}"
        try:
            await ls.work_done_progress.create_async(token)
            ls.work_done_progress.begin(token, T.WorkDoneProgressBegin(
                title=f"stepsmith: mutants of {Path(path).name}", percentage=0,
                cancellable=False))
        except Exception:
            return None
        return token

    def cancel(self, path: str) -> None:
        stop, group = self.running.pop(path, (None, None))
        if stop is not None:
            stop.set()
            group.kill()

    def shutdown(self) -> None:
        for path in list(self.running):
            self.cancel(path)
        if self._servers is not None:
            self._servers.close()
        if self._rounds is not None:
            self._rounds.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ triggers
    def on_save(self, path: str) -> None:
        """A saved file of a watched step file's workflow: its mutants again, in the
        background."""
        folder = Path(path).resolve().parent
        for watched in list(self.watched):
            root = Path(watched).resolve().parent.parent
            if watched == path or root == folder or root in folder.parents:
                wait = self.ls.runner.file_tasks.get(path) if watched == path else None
                asyncio.ensure_future(self._refresh(watched, wait))

    async def _refresh(self, path: str, wait=None) -> None:
        try:
            await self.run(path, progress=False, wait=wait)
        except Exception as exc:  # a background run: logged, never a crash
            self.ls.log_exception(f"mutants of {path}", exc)

    # ------------------------------------------------------------------ what shows
    def diagnostics(self, path: str, text: str, lines, encoding: str) -> list[dict]:
        """Survivors on `text` (the document's current text), as Information diagnostics; none
        when the records were computed on another text."""
        last = self.last.get(path)
        if last is None or last.text != text:
            return []
        from stepsmith.runner.mutants.verdicts import MutantRecord
        from stepsmith.runner.problems import Span
        from stepsmith.server.convert import lsp_range

        out = []
        fields = MutantRecord.__dataclass_fields__
        for m in last.doc["mutants"]:
            if m["status"] != "survived" or "range" not in m:
                continue
            rec = MutantRecord(**{k: v for k, v in m.items() if k in fields})
            out.append({"range": lsp_range(Span(m["line"], m["column"], m["end_line"],
                                                m["end_column"]), lines, encoding),
                        "severity": INFORMATION, "code": f"mutant/{m['operator']}",
                        "source": SOURCE, "message": rec.message(),
                        "data": {"operator": m["operator"], "steps": m["steps"],
                                 "original": m["original"], "replacement": m["replacement"]}})
        return out

    def survivors(self, path: str, step_id: str, text: str | None) -> int | None:
        last = self.last.get(path)
        if last is None or text is None or last.text != text:
            return None
        return last.steps.get(step_id)

    def _publish(self, path: str) -> None:
        uri = self.ls.session.open_uri(path)
        if uri is not None:
            self.ls.publisher.publish(uri, refresh=True)
        self.ls.publisher.lenses_changed(delay=0)

    def changed(self, path: str, *, deleted: bool) -> None:
        """A watched file event: a deleted file or folder takes its step files' records
        with it; anything else may change a verdict, so the watched files run again."""
        if not deleted:
            self.on_save(path)
            return
        gone = Path(path)
        for known in set(self.last) | self.watched | set(self.running):
            if Path(known) == gone or gone in Path(known).parents:
                self.forget(known)

    def forget(self, path: str) -> None:
        self.cancel(path)
        self.last.pop(path, None)
        self.baselines.pop(path, None)
        self.watched.discard(path)


def runs_of(ls) -> MutantRuns:
    found = getattr(ls, "mutant_runs", None)
    if found is None:
        found = ls.mutant_runs = MutantRuns(ls)
    return found


def register(ls) -> None:
    runs_of(ls)

    @ls.feature("stepsmith/mutants")
    @safe
    async def mutants(ls, params):
        require_trust(ls)
        uri = param(params, "uri")
        path = uri_to_path(uri) if uri else None
        if not path or not (path.endswith(".py") or path.endswith((".yaml", ".yml"))):
            raise invalid_params("stepsmith/mutants needs {uri} of a step file or a manifest")
        await ls.wait_workspace_ready()
        return await ls.cancellable(runs_of(ls).run(path))

    @ls.command("stepsmith.mutants")
    @safe
    async def mutants_command(ls, *args):
        require_trust(ls)
        a = command_args(args)
        if not a or not isinstance(a[0], str):
            raise invalid_params("stepsmith.mutants needs [uri]")
        path = uri_to_path(a[0])
        if not path:
            raise invalid_params(f"not a file URI: {a[0]}")
        await ls.wait_workspace_ready()
        return await ls.cancellable(runs_of(ls).run(path))
