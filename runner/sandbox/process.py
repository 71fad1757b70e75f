"""Supervision of one bubblewrap process per step invocation (its command line: cmdline.py).

- wall-clock deadline and output cap (stdout + stderr); SIGKILL to bwrap's process group
  (its own session) and to the sandbox's pid 1 (the interpreter, `--as-pid-1`) through the
  pidfd of the pid bwrap reports on `--info-fd`: the step can leave the group, but a SIGKILL
  from an ancestor pid namespace always reaches the namespace's init, and takes the
  namespace down. `--die-with-parent` covers a runner that is itself killed (the filter
  refuses clearing it). The parent reaps everything.
- `Group`/`joined`: an editor's run can kill every sandbox it started at once.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import subprocess
import threading
import time
from dataclasses import dataclass

from . import launcher, namespaces
from .cmdline import Unavailable, command, interpreter, layout  # noqa: F401  (their old home)


class Group:
    """The sandboxes one caller started (an editor's run): `kill` ends them all at once, and
    any started after it is killed at birth. Registered per thread with `joined`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pids: set[int] = set()
        self.killed = False

    def _add(self, pid: int) -> bool:
        with self._lock:
            if not self.killed:
                self._pids.add(pid)
            return not self.killed

    def _discard(self, pid: int) -> None:
        with self._lock:
            self._pids.discard(pid)

    def pids(self) -> list[int]:
        """The bwrap processes of this group's running sandboxes."""
        with self._lock:
            return sorted(self._pids)

    def kill(self) -> None:
        # the group kill ends bwrap; supervise() then kills the namespace's init and reaps
        with self._lock:
            self.killed = True
            pids = list(self._pids)
        for pid in pids:
            _kill(pid)


_local = threading.local()


def current_group() -> Group | None:
    """The group this thread's sandboxes join (`joined`), or None."""
    return getattr(_local, "group", None)


class joined:  # noqa: N801 - used as `with joined(group):`
    """Sandboxes started by this thread inside the block belong to `group`."""

    def __init__(self, group: Group) -> None:
        self.group = group

    def __enter__(self) -> Group:
        self.prev = getattr(_local, "group", None)
        _local.group = self.group
        return self.group

    def __exit__(self, *exc) -> None:
        _local.group = self.prev


@dataclass
class Outcome:
    stdout: bytes
    stderr: bytes
    returncode: int | None  # bwrap's exit status (>= 128: 128 + signal in the sandbox)
    wall_killed: bool
    output_killed: bool
    duration_s: float
    cpu_s: float | None
    # from the hand-off to the last byte of stdout (the result) read; the rest of
    # duration_s is the sandbox's teardown, waited for (bench/sandbox.py reports both)
    result_s: float | None = None


@dataclass
class Started:
    """A sandbox process started and not yet given its request (it blocks reading stdin)."""

    proc: subprocess.Popen
    info_r: int  # read end of bwrap's --info-fd
    # once bwrap has named the sandbox's pid 1 (`settle`, or drive's loop): its pidfd and
    # its namespaces, held until the call ends (namespaces.py)
    init_pidfd: int | None = None
    held: tuple[int, ...] = ()
    pending: bytes = b""  # what `settle` read of --info-fd before bwrap finished reporting


def spawn(cmd: list[str], pass_fds: tuple[int, ...], interp=None) -> Started:
    """Start bwrap on `cmd`; the interpreter then waits for its request on stdin. `interp`:
    the sandbox's interpreter (its layout says as whom and from where bwrap starts)."""
    # --info-fd: bwrap reports the host pid of the sandbox's pid 1. When that process is gone,
    # the kernel has already killed and reaped everything else in the pid namespace, so
    # waiting for it is what makes "nothing outlives the call" true, not merely "eventually".
    info_r, info_w = os.pipe()
    lay = layout(interp)
    try:
        # runner is root: bwrap (and so the sandbox) runs as an unprivileged host user
        proc = launcher.popen(
            [cmd[0], "--info-fd", str(info_w), *cmd[1:]], lay,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={},
            pass_fds=(*pass_fds, info_w), close_fds=True, start_new_session=True, bufsize=0,
        )
    except BaseException:
        os.close(info_r)
        raise
    finally:
        os.close(info_w)
    return Started(proc, info_r)


def settle(started: Started, timeout: float = 5.0) -> None:
    """Wait until bwrap has named the sandbox's pid 1, then open its pidfd and hold its
    namespaces: a spare does this while it waits, not on the path of the call that takes
    it."""
    if started.init_pidfd is not None:
        return
    _wait_readable(started.info_r, timeout)
    info = _read_rest(started.info_r, bytearray())
    if b"}" in info:
        _adopt(started, info)
    else:  # not reported yet (or bwrap failed): drive reads the rest and decides
        started.pending = info


def _adopt(started: Started, info: bytes) -> None:
    """From bwrap's --info-fd report: the pidfd of the sandbox's pid 1, and its namespaces
    held (nothing when it named none, or that process is already gone)."""
    m = _CHILD_PID.search(info)
    if not m:
        return
    try:
        started.init_pidfd = os.pidfd_open(int(m.group(1)))
    except (AttributeError, OSError):  # already gone (or no pidfd support)
        return
    started.held = namespaces.hold(int(m.group(1)), started.init_pidfd)


def discard(started: Started) -> None:
    """Kill a started sandbox that will never get a request, and reap it (after bwrap has
    named its pid 1, so that is killed too)."""
    _wait_readable(started.info_r, 5.0)
    drive(started, b"", wall=0.0, output_cap=0)


def supervise(cmd: list[str], stdin: bytes, pass_fds: tuple[int, ...], *, wall: float,
              output_cap: int, stderr_cap: int = 16 * 1024, interp=None) -> Outcome:
    return drive(spawn(cmd, pass_fds, interp), stdin, wall=wall, output_cap=output_cap,
                 stderr_cap=stderr_cap)


_IN = select.POLLIN | select.POLLHUP | select.POLLERR


def drive(started: Started, stdin: bytes, *, wall: float, output_cap: int,
          stderr_cap: int = 16 * 1024) -> Outcome:
    """Hand `stdin` (the request) to a started sandbox and supervise it to the end: the wall
    deadline runs from here; whatever happens, nothing of it outlives the call. One poll
    loop over stdin, stdout, stderr, bwrap's --info-fd and bwrap's pidfd (a plain poll
    object: the selectors layer cost ~0.1 ms a sandbox)."""
    start = time.monotonic()
    proc, info_r = started.proc, started.info_r
    pid = proc.pid
    group = getattr(_local, "group", None)
    if group is not None and not group._add(pid):
        _kill(pid)  # its run was cancelled meanwhile
    in_fd, out_fd, err_fd = proc.stdin.fileno(), proc.stdout.fileno(), proc.stderr.fileno()
    info = bytearray(started.pending)
    init_pidfd = started.init_pidfd
    deadline = start + wall
    out = bytearray()
    err = bytearray()
    err_total = 0
    wall_killed = output_killed = False
    result_at = None
    pidfd = None
    poller = select.poll()
    try:
        try:
            pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pidfd = None
        for fd in (in_fd, out_fd, err_fd, info_r):
            os.set_blocking(fd, False)
        view = memoryview(stdin)
        if view:  # the pipe holds the request (_grow_pipe): usually written right here
            _grow_pipe(in_fd, len(stdin))
            try:
                view = view[os.write(in_fd, view):]
            except BlockingIOError:
                pass
            except OSError:  # the sandbox is gone already: its exit status tells why
                view = view[:0]
        if view:
            poller.register(in_fd, select.POLLOUT)
        else:
            proc.stdin.close()
        for fd in ((out_fd, err_fd) if init_pidfd is not None else (info_r, out_fd, err_fd)):
            poller.register(fd, _IN)
        if pidfd is not None:
            poller.register(pidfd, select.POLLIN)
        open_streams = 2
        exited = False
        while open_streams or not exited:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                wall_killed = True
                break
            if not open_streams and pidfd is None:
                # no pidfd: poll the child
                if proc.poll() is not None:
                    break
                time.sleep(min(0.005, remaining))
                continue
            for fd, _ in poller.poll(remaining * 1000 + 1):
                if fd == in_fd:
                    try:
                        view = view[os.write(in_fd, view[:1 << 20]):]
                    except BlockingIOError:
                        continue
                    except OSError:
                        view = view[:0]
                    if not view:
                        poller.unregister(in_fd)
                        proc.stdin.close()
                elif fd == pidfd:
                    exited = True
                    poller.unregister(pidfd)
                elif fd == info_r:
                    try:
                        chunk = os.read(info_r, 4096)
                    except BlockingIOError:
                        continue
                    info += chunk
                    if not chunk or b"}" in info:
                        poller.unregister(info_r)
                        _adopt(started, bytes(info))
                        init_pidfd = started.init_pidfd
                else:
                    try:
                        chunk = os.read(fd, 65536)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        poller.unregister(fd)
                        open_streams -= 1
                        continue
                    if fd == out_fd:
                        out += chunk
                        result_at = time.monotonic()
                    else:
                        err_total += len(chunk)
                        room = stderr_cap - len(err)
                        if room > 0:
                            err += chunk[:room]
                    if len(out) + err_total > output_cap:  # stdout and stderr both count
                        output_killed = True
                        break
            if output_killed:
                break
    finally:
        # Kill the whole group before reaping (a zombie leader keeps the pgid from reuse),
        # and the sandbox's pid 1 itself through its pidfd: code in the sandbox can leave
        # bwrap's process group (setsid) and clear its parent-death signal (prctl), so
        # neither the group kill nor --die-with-parent is enough on its own. A SIGKILL from
        # this (ancestor) pid namespace always reaches the namespace's init, and its death
        # takes every other process of the namespace with it.
        if init_pidfd is None:
            info += _read_rest(info_r, info)
            _adopt(started, bytes(info))
            init_pidfd = started.init_pidfd
        _kill(pid, init_pidfd)
        if init_pidfd is not None:
            _wait_readable(init_pidfd, 3.0)
            os.close(init_pidfd)
            started.init_pidfd = None
        os.close(info_r)
        cpu = None
        status = None
        try:
            _, status, usage = os.wait4(pid, 0)
            cpu = usage.ru_utime + usage.ru_stime
        except ChildProcessError:
            pass
        proc.returncode = (os.waitstatus_to_exitcode(status) if status is not None else -1)
        for f in (proc.stdin, proc.stdout, proc.stderr):
            try:
                if f and not f.closed:
                    f.close()
            except OSError:
                pass
        if pidfd is not None:
            os.close(pidfd)
        # pid 1 is gone and bwrap reaped: what is left is the empty namespaces' teardown
        namespaces.release(started.held)
        started.held = ()
        if group is not None:
            group._discard(pid)
    return Outcome(bytes(out), bytes(err), proc.returncode, wall_killed, output_killed,
                   time.monotonic() - start, cpu,
                   None if result_at is None else result_at - start)


_CHILD_PID = re.compile(rb'"child-pid"\s*:\s*(\d+)')


def _grow_pipe(fd: int, size: int) -> None:
    """Make the stdin pipe hold the whole request (the harness and validator code are ~190 KB,
    the default pipe 64 KiB), so it is written at once while the sandbox starts, instead of
    in 64 KiB turns that each wait for the harness to read. Best effort (capped by
    /proc/sys/fs/pipe-max-size); the loop below copes with any size."""
    if size <= 65536:
        return
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, min(size, 1 << 20))
    except (ImportError, AttributeError, OSError):
        pass


def _wait_readable(fd: int, timeout: float) -> None:
    """Block until `fd` is readable: a pidfd once its process has exited (its pid namespace
    is then empty), bwrap's --info-fd once it reported."""
    p = select.poll()
    p.register(fd, select.POLLIN)
    p.poll(timeout * 1000)


def _read_rest(fd: int, info: bytearray) -> bytes:
    """What bwrap has written to --info-fd and the loop did not read yet (non-blocking)."""
    if b"}" in info:
        return b""
    out = bytearray()
    try:
        os.set_blocking(fd, False)
    except OSError:
        return b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except (BlockingIOError, OSError):
            break
        if not chunk:
            break
        out += chunk
    return bytes(out)


def _kill(pid: int, init_pidfd: int | None = None) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if init_pidfd is not None:
        try:
            signal.pidfd_send_signal(init_pidfd, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError, AttributeError):
            pass
