"""`stepsmith test --watch` / `stepsmith check --watch`: run, then run again on every save.

`check --watch` re-checks the whole selection on a change (as `ruff check --watch`: the
validator's statement cache makes that cheap). `test --watch` re-runs only the fixtures a change
can affect (`affected`): a fixture file itself, every fixture of a step whose code file changed,
and every fixture of a workflow whose manifest changed; new fixture files are picked up because
the selection is made anew each time. The screen is cleared before each summary (on a
terminal), failures first. Ctrl-C ends it with exit 0; sandboxes die with the process
(bwrap --die-with-parent), so none is left behind.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

WATCHED_SUFFIXES = (".py", ".yaml", ".yml", ".json")


def watched(change, path: str) -> bool:
    """watchfiles filter: workflow files only, never our own state under .stepsmith/."""
    parts = Path(path).parts
    if ".stepsmith" in parts or "__pycache__" in parts or ".git" in parts:
        return False
    return path.endswith(WATCHED_SUFFIXES)


def _step_file(case) -> Path | None:
    wf = case.workflow.workflow
    if wf is None or not case.step_id:
        return None
    try:
        ref = wf.step(case.step_id).code_ref
    except (KeyError, AttributeError, StopIteration):
        return None
    return (case.workflow.dir / ref.path).resolve() if ref is not None else None


def affected(cases: Iterable, changed: set[Path]) -> list:
    """The cases a change to `changed` (resolved paths) can alter."""
    out = []
    for c in cases:
        if c.path is not None and c.path.resolve() in changed:
            out.append(c)
        elif c.workflow.manifest_path.resolve() in changed:
            out.append(c)
        elif (_step_file(c) in changed) or (_step_file(c) is None and any(
                p.is_relative_to(c.workflow.dir.resolve()) for p in changed)):
            out.append(c)
    return out


def _stat_all(roots: list[str]) -> dict[Path, tuple[int, int]]:
    out = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in (".stepsmith", "__pycache__", ".git")]
            for name in filenames:
                p = os.path.join(dirpath, name)
                if watched(None, p):
                    try:
                        st = os.stat(p)
                    except OSError:
                        continue
                    out[Path(p).resolve()] = (st.st_mtime_ns, st.st_size)
    return out


WAITING = "waiting for changes... (Ctrl-C to stop)"


def _changed(paths, seen: dict) -> set[Path]:
    """The paths whose stat differs from what the last run saw (a save often arrives as
    several events; content a run already saw is not a change)."""
    out = set()
    for p in paths:
        try:
            st = os.stat(p)
            now = (st.st_mtime_ns, st.st_size)
        except OSError:
            now = None
        if seen.get(p) != now:
            out.add(p)
    return out


def loop(paths: list[str], once: Callable[[set[Path] | None], None], *,
         stop_event=None, out=None) -> int:
    """`once(None)` now, then `once(changed paths)` after every batch of saves, until Ctrl-C
    (or `stop_event`, for tests). The watcher starts before the first run, and what changed
    while it was starting is found by comparing the files' stats, so no save is missed; a
    batch whose files are as the last run saw them is not run again. "waiting for
    changes" is printed only once everything seen so far has run."""

    import watchfiles

    out = out or sys.stdout
    roots = [p.partition("::")[0] for p in paths]
    roots = [r if os.path.isdir(r) else os.path.dirname(os.path.abspath(r)) for r in roots]
    stop = stop_event or threading.Event()
    batches: queue.Queue = queue.Queue()

    def pump() -> None:
        try:
            for changes in watchfiles.watch(*roots, watch_filter=watched, debounce=300, step=50,
                                            stop_event=stop, raise_interrupt=False):
                batches.put({Path(p).resolve() for _c, p in changes})
        finally:
            batches.put(None)

    def run(changed: set[Path] | None, seen: dict) -> None:
        before = _stat_all(roots)
        once(changed)
        seen.clear()
        seen.update(before)  # what this run read (a save during it shows up as a change)

    threading.Thread(target=pump, name="stepsmith-watch", daemon=True).start()
    seen: dict = {}
    try:
        run(None, seen)
        while not stop.is_set():
            missed = _changed(set(seen) | set(_stat_all(roots)), seen)
            if missed:  # saved while a run (or the watcher's start) was under way
                run(missed, seen)
                continue
            print(WAITING, file=out, flush=True)
            batch = None
            while batch is None and not stop.is_set():
                try:
                    batch = batches.get(timeout=0.5)
                except queue.Empty:
                    continue
                if batch is None:
                    stop.set()
                    break
                batch = _changed(batch, seen) or None
            while not stop.is_set() and not batches.empty():  # queued up: drain them
                more = batches.get_nowait()
                if more is None:
                    stop.set()
                    break
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
    print("stopped watching.", file=out, flush=True)
    return 0


def clear(console) -> None:
    if console.is_terminal:
        console.clear()
