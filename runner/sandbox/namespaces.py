"""A finished sandbox's empty namespaces, torn down off the caller's path.

When the sandbox's pid 1 exits, the kernel tears down every namespace it was the last member
of before its pidfd reports the exit: the mount namespace (each mount unlinked, then an RCU
grace period), the network namespace's loopback, the IPC and UTS namespaces. Measured here,
~0.3 ms of the ~1 ms between a spare's result and its pid 1 being gone, on the path of every
call. None of it is the sandbox still running: from the moment pid 1 is gone the namespaces
hold no process, and nothing can enter one (only a process holding an fd of it could, and
the only fds are these).

So the parent opens the sandbox's namespaces (`hold`, as soon as bwrap has named pid 1) and
keeps them until the call has seen pid 1 gone and reaped bwrap; `release` then hands the fds
to one closer thread, whose `close()` is where the kernel now does the teardown. The
guarantee stays whole: every process of the sandbox is gone and reaped before the call
returns; what the closer finishes afterwards is kernel bookkeeping of namespaces no
process is in. Best effort throughout: a namespace that cannot be opened (the process is
already gone, /proc is not mounted) is simply not held, and its teardown stays where it was.
"""

from __future__ import annotations

import atexit
import os
import queue
import signal
import threading

# the user namespace is kept alive by the others anyway; the cgroup and time namespaces
# cost nothing to tear down (measured: no change)
KINDS = ("mnt", "net", "ipc", "uts", "pid")
# past this many waiting, the caller closes its own (a closer that cannot keep up must
# not let empty namespaces pile up: each holds kernel memory, and five of the runner's fds)
MAX_WAITING = 16

_queue: queue.SimpleQueue = queue.SimpleQueue()  # fd tuples, or an Event (drain)
_lock = threading.Lock()
_thread: threading.Thread | None = None
_waiting = 0


def hold(pid: int, pidfd: int | None) -> tuple[int, ...]:
    """Fds of `pid`'s namespaces (see KINDS). `pidfd`, that process's pidfd, confirms
    afterwards that `pid` was not reused meanwhile; without one nothing is held."""
    if pidfd is None:
        return ()
    fds = []
    for kind in KINDS:
        try:
            fds.append(os.open(f"/proc/{pid}/ns/{kind}", os.O_RDONLY | os.O_CLOEXEC))
        except OSError:
            break
    try:  # still the same process: then the fds are its namespaces
        signal.pidfd_send_signal(pidfd, 0)
    except OSError:
        _close(tuple(fds))
        return ()
    return tuple(fds)


def release(fds: tuple[int, ...]) -> None:
    """Close `fds` on the closer thread (inline when it is far behind, or cannot start)."""
    global _thread, _waiting
    if not fds:
        return
    with _lock:
        if _waiting < MAX_WAITING:
            try:
                if _thread is None or not _thread.is_alive():
                    _thread = threading.Thread(target=_closer, name="stepsmith-namespaces",
                                               daemon=True)
                    _thread.start()
            except RuntimeError:  # no new threads (interpreter shutting down)
                pass
            else:
                _waiting += 1
                _queue.put(fds)
                return
    _close(fds)


def drain() -> None:
    """Wait until every released namespace is closed (at exit; tests)."""
    done = threading.Event()
    with _lock:
        running = _thread is not None and _thread.is_alive()
        if running:
            _queue.put(done)
    if running:
        done.wait(10)


def _closer() -> None:
    global _waiting
    while True:
        item = _queue.get()
        if isinstance(item, threading.Event):
            item.set()
            continue
        _close(item)
        with _lock:
            _waiting -= 1


def _close(fds) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


atexit.register(drain)
