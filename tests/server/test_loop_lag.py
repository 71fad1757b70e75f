"""The event loop is never blocked by analysis (issue 21): with traced fixture runs on a
10,000-line step file, its coverage notes ("no fixture takes this branch": a static branch
analysis and a line diff of 10,000 lines) are computed on the analysis worker as part of the
versioned result, and the runs' disk work (loading the workflow, listing fixtures, positioning
results) on the run pool. In-process: the real server object, its handlers, worker, run pool
and a real sandbox; a heartbeat task measures how late the loop wakes it. The bound is a
correctness check (a blocked loop stalls for hundreds of milliseconds here), not a speed claim.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time

import pytest
from lsprotocol import types as T
from pygls.uris import from_fs_path
from stepsmith.server.handlers import documents
from stepsmith.server.server import create_server

BOUND_MS = 100
FUNC = '''def block_{i}(rows, limit):
    note = {i}
    kept = [r for r in rows if r["n"] > limit]
    if kept:
        return {{"kept": len(kept), "k": note}}
    return {{"kept": 0, "k": note}}


'''


def big_step_file(lines: int) -> str:
    return "".join(FUNC.format(i=i) for i in range(lines // 8 + 1))


def workflow(root):
    (root / "steps").mkdir()
    (root / "steps" / "big.py").write_text(big_step_file(10_000))
    (root / "workflow.yaml").write_text(
        'workflow: lag\nversion: 1\npython: "3.11"\ntrigger: {manual: {}}\n'
        "connections:\n  ledger: {description: Ledger}\n"
        "sources:\n  rows: {connection: ledger, description: Rows}\nsteps:\n"
        "  - id: first\n    explanation: The first block.\n    code: steps/big.py:block_0\n"
        '    inputs: {rows: sources.rows, limit: 10}\n')
    (root / "fixtures" / "first").mkdir(parents=True)
    (root / "fixtures" / "first" / "small.json").write_text(json.dumps({
        "inputs": {"rows": [{"n": 1}]},
        "evaluation_time": "2026-12-01T07:00:00+00:00", "seed": 1,
        "expected": {"output": {"kept": 0, "k": 0}}}))
    return root / "workflow.yaml", root / "steps" / "big.py"


class Heartbeat:
    """How long the loop was busy between two wakes of a task that asks to wake every 5 ms,
    counted in the loop thread's CPU time: a callback blocking the loop spends it there, while
    waiting for a core or for the GIL (2 cores shared by many jobs) does not."""

    def __init__(self) -> None:
        self.worst = 0.0  # ms of loop-thread CPU between two beats
        self.worst_wall = 0.0  # ms late, wall clock (printed: it includes the machine's load)
        self._task = asyncio.ensure_future(self._beat())

    async def _beat(self) -> None:
        while True:
            t, cpu = time.perf_counter(), time.thread_time()
            await asyncio.sleep(0.005)
            self.worst = max(self.worst, (time.thread_time() - cpu) * 1000)
            self.worst_wall = max(self.worst_wall, (time.perf_counter() - t - 0.005) * 1000)

    def stop(self) -> None:
        self._task.cancel()


async def until(predicate, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.02)


@pytest.mark.asyncio
async def test_coverage_notes_of_a_10000_line_file_never_block_the_loop(tmp_path):
    manifest, step = workflow(tmp_path)
    ls = create_server()
    ls.loop = asyncio.get_running_loop()
    sent: list[tuple[str, dict]] = []
    ls.send_raw = lambda method, params: sent.append((method, params))
    ls.session.model.set_folders([str(tmp_path)])
    uri = from_fs_path(str(step))
    text = step.read_text()
    try:
        ls.scheduler.discover()
        await until(ls.scheduler.settled)
        documents.did_open(ls, T.DidOpenTextDocumentParams(
            T.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        assert await ls.scheduler.wait_analysed(uri)
        results = await ls.runner.run_step(str(manifest), "first")  # a real sandbox, traced
        assert [r.outcome for r in results] == ["passed"], results

        def notes_published(version):
            return any(m == T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS and p["uri"] == uri
                       and p.get("version") == version
                       and any(d.get("code") == "untaken-branch" for d in p["diagnostics"])
                       for m, p in sent)

        await until(lambda: notes_published(1))  # the runs' notes arrive on the open text
        # the suite's own heap (thousands of tests before this one, in one process) is not
        # the server's: a full collection of it on this thread is no work of the loop's
        gc.collect()
        gc.freeze()
        beat = Heartbeat()
        await asyncio.sleep(0.05)
        for version in range(2, 6):  # typing: every version gets its notes, carried
            documents.did_change(ls, T.DidChangeTextDocumentParams(
                T.VersionedTextDocumentIdentifier(uri=uri, version=version),
                [T.TextDocumentContentChangePartial(
                    range=T.Range(T.Position(1, 0), T.Position(1, 12)),
                    text=f"    note = {version}")]))
            await until(lambda v=version: notes_published(v))
        await ls.runner.run_step(str(manifest), "first")
        await until(lambda: ls.scheduler.idle())
        await asyncio.sleep(0.1)
        beat.stop()
        print(f"loop busy at most {beat.worst:.1f} ms CPU; late at most {beat.worst_wall:.0f} ms")
        assert beat.worst < BOUND_MS, f"the loop was blocked for {beat.worst:.0f} ms"
    finally:
        gc.unfreeze()
        ls.scheduler.stop()
        if ls.runs is not None:
            ls.runs.shutdown()
        ls.services.shutdown(wait=False)
