"""The seccomp filter passed to `bwrap --seccomp FD` (applied right before bwrap execs Python).

RLIMIT_NPROC is void for root and per-uid system-wide otherwise, so "no new processes" is
enforced here: fork/vfork and every clone (processes and threads) fail with EPERM, clone3
with ENOSYS (glibc then falls back to clone). Sockets of every family fail with EPERM unless
the run is live (then AF_UNIX only: the sandbox has no network of its own, and its one way out
is the runner's egress proxy on a unix socket, egress.py). A list of kernel attack surface a step never
needs (ptrace, mount, namespaces, keyrings, bpf, io_uring, module loading, ...) fails too.
The compiled BPF is cached per process (one for offline, one for live runs).

Not filterable this way: execve (bwrap's own exec of Python happens after the filter is
loaded). An exec'd program inherits the filter, the rlimits and the namespaces, and loses the
harness's result fd (O_CLOEXEC); see docs in runner/sandbox/__init__.py.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
import threading

_PR_SET_PDEATHSIG = 1
_CLONE_THREAD = 0x00010000
_lock = threading.Lock()
_cache: dict[tuple[bool, bool], bytes] = {}
_child: list[bytes] = []

DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root",
    "chroot", "unshare", "setns", "keyctl", "add_key", "request_key", "bpf",
    "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "acct", "swapon", "swapoff", "reboot", "syslog", "open_by_handle_at",
    "name_to_handle_at", "fanotify_init", "quotactl", "lookup_dcookie", "iopl", "ioperm",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "kcmp", "pidfd_getfd",
    "memfd_create", "move_pages", "mbind", "personality", "vhangup", "fsopen", "fsmount",
    "fsconfig", "fspick", "open_tree", "move_mount", "mount_setattr",
    # System V IPC and POSIX message queues: shared-memory segments outlive shmdt() and are
    # not counted in RLIMIT_AS (a step filled 1 GiB under a 256 MiB limit), and queues are
    # charged to the host uid's quota.
    # inotify/fanotify watches and instances are per-host-user quotas (a step took 192,530
    # watches; the host user's own inotify_add_watch then failed with ENOSPC)
    "inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch", "fanotify_mark",
    "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl", "semget",
    "semop", "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend",
    "mq_timedreceive", "mq_notify", "mq_getsetattr",
)


class SeccompUnavailable(RuntimeError):
    pass


def bpf(live_network: bool = False, *, forks: bool = False) -> bytes:
    """The compiled filter (raw BPF program bytes), built once per process. `forks`: the
    filter of a fork server's sandbox (sandbox/forks.py), which lets its pid 1 fork processes
    (never threads); every child loads `child_bpf()` on top before any step code, so step
    code runs under exactly the forbidding filter."""
    with _lock:
        prog = _cache.get((live_network, forks))
        if prog is None:
            prog = _build(live_network, forks)
            _cache[(live_network, forks)] = prog
        return prog


def _pyseccomp():
    try:
        import pyseccomp as sc
    except Exception as exc:  # pragma: no cover - dependency is declared
        raise SeccompUnavailable(f"libseccomp bindings missing ({exc}): pip install pyseccomp "
                                 "or apt-get install python3-seccomp") from exc
    return sc


def _no_new_processes(f, sc) -> None:
    eperm = sc.ERRNO(errno.EPERM)
    for name in ("fork", "vfork"):
        f.add_rule(eperm, name)
    # clone: without CLONE_THREAD a new process; with it a thread. The harness needs no
    # thread, and threads with 16 KiB stacks gave 15,282 host tasks from one sandbox (half the
    # host's pid limit, ~234 MB of kernel stacks outside RLIMIT_AS): refuse both.
    f.add_rule(eperm, "clone")
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")


def _export(f) -> bytes:
    with tempfile.TemporaryFile() as tmp:
        f.export_bpf(tmp)
        tmp.seek(0)
        data = tmp.read()
    if not data:
        raise SeccompUnavailable("libseccomp produced an empty filter")
    return data


def child_bpf() -> bytes:
    """What a fork server's child loads on top of its sandbox's `forks` filter before any
    step code: no fork, vfork, clone or clone3, so the two together forbid exactly what
    `bpf()` does."""
    with _lock:
        if not _child:
            sc = _pyseccomp()
            f = sc.SyscallFilter(sc.ALLOW)
            _no_new_processes(f, sc)
            _child.append(_export(f))
        return _child[0]


def _build(live_network: bool, forks: bool = False) -> bytes:
    sc = _pyseccomp()
    f = sc.SyscallFilter(sc.ALLOW)
    eperm = sc.ERRNO(errno.EPERM)
    if forks:  # processes only (fork is clone without CLONE_THREAD); vfork, threads refused
        f.add_rule(eperm, "vfork")
        f.add_rule(eperm, "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, _CLONE_THREAD))
        f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    else:
        _no_new_processes(f, sc)
    # --die-with-parent is a parent-death signal bwrap sets before loading this filter; the
    # step (the namespace's pid 1) clearing it would outlive a runner that is killed
    f.add_rule(eperm, "prctl", sc.Arg(0, sc.EQ, _PR_SET_PDEATHSIG))
    if live_network:  # the only way out is the runner's egress proxy, on a unix socket
        for fam in range(64):
            if fam != socket.AF_UNIX:
                f.add_rule(eperm, "socket", sc.Arg(0, sc.EQ, fam))
        f.add_rule(eperm, "socket", sc.Arg(0, sc.GE, 64))
        f.add_rule(eperm, "socketpair")
    else:
        f.add_rule(eperm, "socket")
        f.add_rule(eperm, "socketpair")
    for name in DENIED:
        try:
            f.add_rule(eperm, name)
        except Exception:  # noqa: BLE001, S112 - syscall unknown on this arch / libseccomp
            continue
    return _export(f)


def memfd_with(data: bytes, name: str) -> int:
    """A read-positioned fd holding `data` (for bwrap's --seccomp / --args)."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
