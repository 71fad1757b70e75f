"""Second hostile review (issue 10), findings 4 and 5: the sandbox's host identity and the
per-user kernel quotas it could charge to the runner's user. Run as root (scripts/test on a
fresh Debian machine is), the sandbox must still be an unprivileged host user."""

import ctypes
import errno
import json
import os
import subprocess
import sys
import threading
import time

import pytest
from sandbox_kit import new_marker, sandbox_pids_with
from stepsmith.runner.sandbox import run_unvalidated

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the host-root findings need a root runner")


def ok(res):
    assert res.status == "ok", (res.status, res.message, res.error)
    return res.output


def _host_uids_of_sandbox_while_running() -> tuple[list[int], object]:
    """Start a step that spins for a while; read its host uid from the host's /proc."""
    marker = new_marker()
    src = ("import time\ndef f(connections):\n    t = time.monotonic()\n"
           "    while time.monotonic() - t < 1.2:\n        pass\n    return 1\n")
    box = {}
    th = threading.Thread(target=lambda: box.setdefault("r", run_unvalidated(
        src, "f", {}, connections={"probe": marker})))
    th.start()
    uids: list[int] = []
    deadline = time.monotonic() + 4
    while time.monotonic() < deadline and not uids:
        for pid in sandbox_pids_with(marker):
            try:
                with open(f"/proc/{pid}/status") as f:
                    line = next(x for x in f if x.startswith("Uid:"))
                uids.extend(int(u) for u in line.split()[1:])
            except (OSError, StopIteration):
                continue
        time.sleep(0.02)
    th.join()
    return uids, box["r"]


@as_root
def test_sandbox_host_uid_is_not_root():
    uids, res = _host_uids_of_sandbox_while_running()
    assert res.status == "ok", res
    assert uids, "the sandbox process was not found on the host"
    assert 0 not in uids, uids


@as_root
def test_root_only_proc_files_unreadable_and_no_root_keyrings():
    src = '''
def f(paths):
    out = {}
    for p in paths:
        try:
            with open(p, "rb") as fh:
                fh.read(64)
            out[p] = "read"
        except OSError as e:
            out[p] = e.errno
    out["keys"] = open("/proc/keys").read()
    return out
'''
    paths = ["/proc/slabinfo", "/proc/vmallocinfo", "/proc/kpageflags", "/proc/timer_list",
             "/proc/sys/net/ipv4/tcp_fastopen_key", "/proc/kallsyms"]
    out = ok(run_unvalidated(src, "f", {"paths": paths}))
    for p in paths[:-1]:
        if os.path.exists(p):
            assert out[p] in (errno.EACCES, errno.EPERM, errno.ENOENT), (p, out[p])
    with open("/proc/keys") as f:
        host_root = [ln.split()[-2].rstrip(":") for ln in f if "_uid.0" in ln or "_uid_ses.0" in ln]
    for name in host_root:
        assert name not in out["keys"], out["keys"]
    assert "_uid.0:" not in out["keys"] and "_uid_ses.0:" not in out["keys"], out["keys"]


def test_small_stack_thread_flood_creates_at_most_a_handful_of_tasks():
    src = '''
import threading, time
def f():
    threading.stack_size(32768)
    started = 0
    error = None
    for _ in range(3000):
        try:
            threading.Thread(target=time.sleep, args=(5,), daemon=True).start()
            started += 1
        except Exception as e:
            error = type(e).__name__
            break
    tasks = len(__import__("os").listdir("/proc/self/task"))
    return {"started": started, "tasks": tasks, "error": error}
'''
    out = ok(run_unvalidated(src, "f", {}))
    assert out["started"] <= 4 and out["tasks"] <= 5, out


def _inotify_works_here() -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_CLOEXEC)
    if fd < 0:
        return False
    try:
        return libc.inotify_add_watch(fd, b"/", 0x00000100) >= 0  # IN_CREATE
    finally:
        os.close(fd)


def test_inotify_flood_refused_and_host_user_calls_still_work():
    src = '''
import ctypes, os
def f():
    libc = ctypes.CDLL(None, use_errno=True)
    instances = watches = 0
    first_errno = None
    for _ in range(200):
        fd = libc.inotify_init1(0)
        if fd < 0:
            first_errno = ctypes.get_errno()
            break
        instances += 1
        for d in ("/", "/proc", "/dev", "/tmp", "/etc", "/usr", "/usr/lib"):
            if libc.inotify_add_watch(fd, d.encode(), 0xfff) >= 0:
                watches += 1
    return {"instances": instances, "watches": watches, "errno": first_errno}
'''
    out = ok(run_unvalidated(src, "f", {}))
    assert out["instances"] == 0 and out["watches"] == 0, out
    assert out["errno"] == errno.EPERM, out
    assert _inotify_works_here()


def test_sigqueue_flood_capped_and_host_user_sigqueue_still_works():
    src = '''
import ctypes, os, signal
def f():
    libc = ctypes.CDLL(None, use_errno=True)
    sig = signal.SIGRTMIN
    signal.pthread_sigmask(signal.SIG_BLOCK, {sig})
    queued = 0
    for _ in range(200000):
        if libc.sigqueue(os.getpid(), sig, ctypes.c_void_p(0)) != 0:
            break
        queued += 1
    return queued
'''
    queued = ok(run_unvalidated(src, "f", {}))
    assert queued <= 64, queued
    # the host user's own sigqueue, in a single-threaded child (a process-directed signal in
    # this multi-threaded test process could land on a thread that does not block it)
    check = ("import ctypes, os, signal\n"
             "libc = ctypes.CDLL(None, use_errno=True)\n"
             "sig = signal.SIGRTMIN + 1\n"
             "signal.pthread_sigmask(signal.SIG_BLOCK, {sig})\n"
             "assert libc.sigqueue(os.getpid(), sig, ctypes.c_void_p(0)) == 0, ctypes.get_errno()\n"
             "assert signal.sigtimedwait({sig}, 1) is not None\n")
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_sandbox_still_runs_a_plain_step_under_the_unprivileged_identity():
    src = "def f(x):\n    return {'x': x + 1}\n"
    assert ok(run_unvalidated(src, "f", {"x": 1})) == {"x": 2}
    assert json.dumps(ok(run_unvalidated(src, "f", {"x": 2}))) == '{"x": 3}'
