"""A finished sandbox's empty namespaces are torn down off the call's path (sandbox/namespaces.py):
the parent holds the very namespaces of the sandbox's pid 1 until that process is gone and bwrap
reaped, then a closer thread lets them go. Nothing is held after that (no fd leaks, run after
run), every process of the sandbox is still gone when the call returns, and what cannot be held
safely (a process that is gone: its pid may be another's) is not held."""

from __future__ import annotations

import os
import subprocess

import pytest
from sandbox_kit import alive
from stepsmith.runner.sandbox import namespaces, process, run_step, run_unvalidated, spares

OWN_NAMESPACES = '''
import os
def f():
    return {k: os.stat("/proc/self/ns/" + k).st_ino for k in ("mnt", "net", "ipc", "uts", "pid")}
'''


def _ns_fds() -> list[str]:
    """This process's open fds that are namespaces (their link reads `mnt:[4026...]`), once
    the closer has closed what earlier runs released (their closes may still be queued)."""
    namespaces.drain()
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            link = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if link.split(":", 1)[0] in namespaces.KINDS and link.endswith("]"):
            out.append(link)
    return out


@pytest.fixture
def released(monkeypatch):
    """The inodes of every namespace fd handed to `release`, read before they are closed."""
    seen: list[dict[str, int]] = []
    real = namespaces.release

    def release(fds):
        seen.append({os.readlink(f"/proc/self/fd/{fd}").split(":", 1)[0]: os.fstat(fd).st_ino
                     for fd in fds})
        real(fds)

    monkeypatch.setattr(namespaces, "release", release)
    return seen


@pytest.mark.parametrize("spare", [False, True])
def test_the_namespaces_held_are_the_sandboxes_own(released, spare):
    if spare:
        assert spares.enable(1).wait_ready(30)
    try:
        res = run_unvalidated(OWN_NAMESPACES, "f", {}) if not spare else None
        if spare:  # a spare runs validated code only: ask the kernel from outside instead
            pool = spares.current()
            (pid,) = pool.pids()
            (init,) = open(f"/proc/{pid}/task/{pid}/children").read().split()
            want = {k: os.stat(f"/proc/{init}/ns/{k}").st_ino for k in namespaces.KINDS}
            assert run_step("def f():\n    return 1\n", "f", {}).output == 1
        else:
            assert res.status == "ok", res
            want = res.output
    finally:
        spares.disable()
    assert released and released[-1] == want


def test_nothing_stays_held_run_after_run():
    before = _ns_fds()
    assert spares.enable(1).wait_ready(30)
    try:
        for _ in range(6):  # fresh and spare runs alike
            assert run_step("def f():\n    return 1\n", "f", {}).output == 1
        assert run_unvalidated("def f():\n    return 1\n", "f", {}).output == 1
    finally:
        spares.disable()
    assert _ns_fds() == before


def test_every_process_is_gone_when_the_call_returns(released, monkeypatch):
    # holding its namespaces changes nothing about the sandbox's processes: bwrap is reaped
    # and its pid 1 gone before the call returns
    pids = []
    real = process.drive

    def drive(started, *a, **k):
        pids.append(started.proc.pid)
        return real(started, *a, **k)

    monkeypatch.setattr(process, "drive", drive)
    res = run_unvalidated("import os\ndef f():\n    return os.getpid()\n", "f", {})
    assert res.output == 1 and pids and not alive(pids[0])
    assert released  # ... and its namespaces were held up to then


def test_a_process_that_is_gone_has_nothing_held():
    # bwrap names pid 1 by number; by the time it is opened that number may be another
    # process's. The pidfd (taken for the number bwrap named) decides: gone, nothing is held,
    # even though /proc/<pid> now shows a live process
    gone = subprocess.Popen(["sleep", "60"])
    pidfd = os.pidfd_open(gone.pid)
    other = subprocess.Popen(["sleep", "60"])
    try:
        gone.kill()
        gone.wait()
        before = _ns_fds()
        assert namespaces.hold(other.pid, pidfd) == ()  # the pid "reused": another process
        assert _ns_fds() == before  # what it opened meanwhile is closed again
        assert namespaces.hold(other.pid, None) == ()  # no pidfd: nothing to confirm it by
        own = os.pidfd_open(other.pid)
        held = namespaces.hold(other.pid, own)  # the process itself: held
        assert len(held) == len(namespaces.KINDS)
        namespaces.release(held)
        namespaces.drain()
        os.close(own)
    finally:
        os.close(pidfd)
        other.kill()
        other.wait()
    assert _ns_fds() == before


def test_a_closer_far_behind_is_not_waited_for(monkeypatch):
    # past MAX_WAITING the caller closes its own: empty namespaces never pile up
    monkeypatch.setattr(namespaces, "MAX_WAITING", 0)
    fd = os.open("/proc/self/ns/uts", os.O_RDONLY)
    namespaces.release((fd,))
    with pytest.raises(OSError):
        os.fstat(fd)  # closed already, by the caller itself
