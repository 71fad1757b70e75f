"""Starting bwrap: where, and as whom, every sandbox process is forked.

Unprivileged runner: bwrap is started directly (under `setarch -R` where available), from
the calling thread, as before.

Root runner (identity.py): bwrap must run as the sandbox user, with address randomisation
off, from a mount namespace where the interpreter's path is reachable by that user. All of
it is set up once, in one thread of the runner kept for the purpose (`_Launcher`), since
Linux keeps each of these per thread and a child inherits them from the thread that forks
it: the thread enters a private mount namespace with the covers and turns ASLR off for its
children (`identity.enter`), and clears its ambient capabilities. For each start it then
takes the sandbox user's uid/gid and no groups *for itself only* (raw syscalls: glibc's
setresuid would change every thread of the process), keeping root as its saved uid, starts
bwrap with a plain `subprocess.Popen` (no uid arguments, no preexec_fn: CPython can then
vfork instead of copying the runner's page tables) and takes root back. The exec makes the
child's saved ids the sandbox user's too, and a non-root exec of a file without capabilities
gains none: bwrap runs with uid/gid r=e=s=fs = the sandbox user, no groups, no capabilities
(tests/sandbox/test_sandbox_host_identity.py). The per-sandbox alternatives cost: a Python
preexec_fn with a fresh namespace and four mounts ~2.8 ms; Popen(user=) (a fork) ~1.8 ms.

While it holds the sandbox user's ids, the thread is never ptrace-able by that user (its
saved uid stays root, and the kernel marks the process non-dumpable at the first switch);
garbage collection is paused for the moment of the start, so no finalizer of another
thread's objects runs with those ids.

The thread lives as long as the process: bwrap's `--die-with-parent` is the death of the
thread that forked it. After `os.fork()` the child starts its own.
"""

from __future__ import annotations

import ctypes
import gc
import os
import queue
import subprocess
import threading
from typing import Any

from .identity import HostIdentity, enter

#: (setgroups, setresuid, setresgid) syscall numbers; elsewhere Popen(user=...) (a fork)
_SYSCALLS = {"x86_64": (116, 117, 119), "aarch64": (159, 147, 149)}
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4


class _ThreadCreds:
    """setgroups/setresuid/setresgid for the calling thread only."""

    def __init__(self, numbers: tuple[int, int, int]) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long
        self.n_groups, self.n_uid, self.n_gid = numbers

    def _call(self, nr: int, *args) -> None:
        if self.libc.syscall(ctypes.c_long(nr), *args) != 0:
            raise OSError(ctypes.get_errno(), f"syscall {nr}")

    def groups(self, gids: list[int]) -> None:
        arr = (ctypes.c_uint * max(1, len(gids)))(*gids)
        self._call(self.n_groups, ctypes.c_long(len(gids)), arr)

    def uids(self, r: int, e: int, s: int) -> None:
        self._call(self.n_uid, ctypes.c_long(r), ctypes.c_long(e), ctypes.c_long(s))

    def gids(self, r: int, e: int, s: int) -> None:
        self._call(self.n_gid, ctypes.c_long(r), ctypes.c_long(e), ctypes.c_long(s))


class _Launcher:
    def __init__(self, ident: HostIdentity, no_aslr: bool) -> None:
        self.ident = ident
        self.pid = os.getpid()
        nums = _SYSCALLS.get(os.uname().machine)
        self.creds = _ThreadCreds(nums) if nums else None
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        threading.Thread(target=self._serve, args=(no_aslr,), name="stepsmith-launcher",
                         daemon=True).start()
        self._ready.wait()

    def _serve(self, no_aslr: bool) -> None:
        try:
            enter(self.ident, no_aslr=no_aslr)
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0:
                err = ctypes.get_errno()
                if err != 22:  # EINVAL: a kernel without ambient capabilities has none
                    raise OSError(err, "prctl(PR_CAP_AMBIENT_CLEAR_ALL)")
            self.root = (os.getresuid(), os.getresgid(), os.getgroups())
        except BaseException as exc:  # noqa: BLE001 - every start then fails with it (unavailable)
            self._error = exc
        self._ready.set()
        while True:
            fn, box, done = self._jobs.get()
            try:
                box.append((True, fn()))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                box.append((False, exc))
            done.set()

    def _start(self, argv: list[str], kwargs: dict) -> subprocess.Popen:
        """In the launcher thread: Popen as the sandbox user (see the module docstring)."""
        uid, gid = self.ident.uid, self.ident.gid
        c = self.creds
        if c is None:
            return subprocess.Popen(argv, user=uid, group=gid, extra_groups=[], **kwargs)
        (ruid, euid, suid), (rgid, egid, sgid), groups = self.root
        collecting = gc.isenabled()
        gc.disable()
        try:
            c.groups([])
            try:
                c.gids(gid, gid, gid)
                try:
                    c.uids(uid, uid, suid)
                    try:
                        return subprocess.Popen(argv, **kwargs)
                    finally:
                        c.uids(ruid, euid, suid)
                finally:
                    c.gids(rgid, egid, sgid)
            finally:
                c.groups(groups)
        finally:
            if collecting:
                gc.enable()

    def call(self, argv: list[str], kwargs: dict) -> subprocess.Popen:
        if self._error is not None:
            raise OSError(f"cannot prepare the sandbox launcher: {self._error}")
        box: list = []
        done = threading.Event()
        self._jobs.put((lambda: self._start(argv, kwargs), box, done))
        done.wait()
        ok, value = box[0]
        if not ok:
            raise value
        return value


_lock = threading.Lock()
#: one launcher per identity plan: each pinned interpreter's sources may need covers of their
#: own (a build under /root), and a launcher's mount namespace is set up once
_launchers: dict[tuple[HostIdentity, bool], _Launcher] = {}


def _get(ident: HostIdentity, no_aslr: bool) -> _Launcher:
    with _lock:
        launcher = _launchers.get((ident, no_aslr))
        if launcher is None or launcher.pid != os.getpid():
            if launcher is not None:  # forked: the parent's threads are not ours
                _launchers.clear()
            launcher = _launchers[(ident, no_aslr)] = _Launcher(ident, no_aslr)
        return launcher


def popen(argv: list[str], lay: dict, **kwargs: Any) -> subprocess.Popen:
    """Start `argv` (a bwrap command line) as every sandbox is started. `lay`: the layout
    (cmdline.layout()): its identity (None: unprivileged runner) and setarch prefix."""
    ident: HostIdentity | None = lay["identity"]
    if ident is None:
        return subprocess.Popen([*lay["prefix"], *argv], **kwargs)
    return _get(ident, bool(lay["prefix"])).call(argv, kwargs)

