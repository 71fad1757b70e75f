"""Sandboxes started ahead of demand, each handed exactly one invocation.

The cost of a step is mostly the sandbox's start (bwrap's namespaces and mounts, the
interpreter's start-up); none of it depends on the request. A spare is that start done
early: a bwrap process built exactly as `cmdline.command` builds every offline sandbox,
whose interpreter blocks reading its request on stdin. Taking one hands it the request and
supervises it like any other (`process.drive`: the wall deadline runs from the hand-off, the
caller's `Group` owns it from then); it is never given a second request, and it is torn
down like every sandbox. What a spare cannot carry on its command line arrives with the
request and is set by the harness before any step code: the pinned time (libfaketime
re-reads FAKETIME on every call) and the granted connections' variables (never on a command
line anyway).

Spares are kept per interpreter: a workflow pinned to another Python than the runner's takes
spares of that interpreter, kept ready from its first run on (`Pool.take(interp)`).

Off unless enabled (`enable(n)`: the language server, the bench). Live runs never take one
(their network and seccomp filter differ). A refill thread keeps `n` ready, but starts one
only once takes have paused for `QUIET_S` (a burst of runs is not slowed by refills
competing for the CPU), and none inside `held()` (the editor's mutants refresh). `close()` (also at exit) kills every idle spare; `--die-with-parent`
covers a runner that is killed.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
import time

from ..harness import SPARE_BOOTSTRAP, bundle, harness_fd
from . import cmdline, process, seccomp

QUIET_S = 0.05
_PLACEHOLDER_TIME = "0"  # the epoch (FAKETIME_FMT=%s); the request's replaces it before any step code



class Pool:
    """`size` spares kept for each interpreter runs have asked for (the running one from the
    start; a pinned one from its first take: a workflow pinned to 3.13 gets 3.13 spares)."""

    def __init__(self, size: int) -> None:
        self.size = max(0, int(size))
        # interpreter key (None: the running one) -> [(spare, sha256 of its harness)]
        self._idle: dict[str | None, list[tuple[process.Started, str]]] = {None: []}
        self._interps: dict[str | None, object] = {None: None}
        self._cond = threading.Condition()
        self._closed = False
        self._last_take = 0.0
        self._held = 0  # holds in force (`held`): no refill meanwhile
        self._thread = threading.Thread(target=self._refill, name="stepsmith-spares",
                                        daemon=True)
        self._thread.start()

    @staticmethod
    def _key(interp) -> str | None:
        return None if interp is None or interp.running else interp.exe

    def take(self, interp=None) -> process.Started | None:
        """A started sandbox of `interp` (default: the running interpreter) nobody else will
        ever get, or None (none ready: start fresh)."""
        key = self._key(interp)
        with self._cond:
            self._last_take = time.monotonic()
            if key not in self._idle:  # the first run on this interpreter: keep some ready
                self._idle[key], self._interps[key] = [], interp
            idle = self._idle[key]
            item = idle.pop(0) if idle else None
            self._cond.notify_all()
        if item is None:
            return None
        spare, sha = item
        # died idle, or holds a harness older than the current one (reset_cache): not usable
        if spare.proc.poll() is not None or sha != bundle(interp)["sha256"]:
            process.discard(spare)
            return None
        return spare

    def hold(self, on: bool) -> None:
        with self._cond:
            self._held += 1 if on else -1
            self._cond.notify_all()

    def pids(self) -> list[int]:
        with self._cond:
            return [s.proc.pid for idle in self._idle.values() for s, _ in idle]

    def _short(self) -> str | None | bool:
        """An interpreter key with fewer than `size` idle spares, or False."""
        for key, idle in self._idle.items():
            if len(idle) < self.size:
                return key
        return False

    def wait_ready(self, timeout: float = 10.0) -> bool:
        """True once `size` spares are idle for every interpreter asked for (tests,
        benchmarks)."""
        end = time.monotonic() + timeout
        with self._cond:
            while self._short() is not False and not self._closed:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return self._short() is False

    def close(self) -> None:
        with self._cond:
            self._closed = True
            idle = [item for items in self._idle.values() for item in items]
            self._idle = {key: [] for key in self._idle}
            self._cond.notify_all()
        for s, _ in idle:
            process.discard(s)
        if self._thread is not threading.current_thread():
            self._thread.join(10)

    def _start_one(self, interp) -> tuple[process.Started, str]:
        """A new spare of `interp`: it loads the harness (from that interpreter's harness
        memfd) as it starts."""
        b = bundle(interp)
        hfd = harness_fd(interp)
        sfd = seccomp.memfd_with(seccomp.bpf(False), "stepsmith-seccomp")
        try:
            cmd = cmdline.command(live_network=False, faketime_spec=_PLACEHOLDER_TIME,
                                  seccomp_fd=sfd, args_fd=None, bootstrap=SPARE_BOOTSTRAP,
                                  bootstrap_args=(str(hfd),), interp=interp)
            spare = process.spawn(cmd, (sfd, hfd), interp)
        finally:
            os.close(sfd)  # bwrap holds its own copy until it has loaded the filter
        process.settle(spare)  # its pid 1's pidfd and namespaces, off the taking call's path
        return spare, b["sha256"]

    def _refill(self) -> None:
        while True:
            with self._cond:
                while not self._closed:
                    quiet = time.monotonic() - self._last_take
                    short = self._short()
                    if short is not False and quiet >= QUIET_S and not self._held:
                        break
                    self._cond.wait(None if short is False or self._held
                                    else QUIET_S - quiet)
                if self._closed:
                    return
                key, interp = short, self._interps[short]
            try:
                item = self._start_one(interp)
            except Exception:  # noqa: BLE001 - cannot start one now (no sandbox, a pinned
                # interpreter that cannot build its harness); runs start fresh sandboxes
                time.sleep(1.0)
                continue
            with self._cond:
                if self._closed:
                    keep = False
                else:
                    self._idle[key].append(item)  # (Started, sha256 of its harness)
                    keep = True
                self._cond.notify_all()
            if not keep:
                process.discard(item[0])


_lock = threading.Lock()
_pool: Pool | None = None


def enable(size: int) -> Pool:
    """Keep `size` sandboxes started ahead of demand (replaces any earlier pool)."""
    global _pool
    disable()
    cmdline.layout()  # raises Unavailable here rather than in the refill thread
    with _lock:
        _pool = Pool(size)
        return _pool


def disable() -> None:
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.close()


def current() -> Pool | None:
    return _pool


@contextlib.contextmanager
def held():
    """No spare starts inside the block (the refill resumes after it): for a burst of CPU
    work that refills would only slow, such as the editor's mutants refresh, whose runs
    take no spare."""
    pool = _pool
    if pool is not None:
        pool.hold(True)
    try:
        yield
    finally:
        if pool is not None:
            pool.hold(False)


def take(interp=None) -> process.Started | None:
    pool = _pool
    return pool.take(interp) if pool is not None else None


atexit.register(disable)
