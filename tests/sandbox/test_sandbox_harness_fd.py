"""The harness frame travels in one sealed memfd per runner process (harness.harness_fd):
no sandbox can change what the next one loads, and no other child inherits it."""

import errno
import fcntl
import mmap
import os

import pytest
from stepsmith.runner.harness import harness_fd
from stepsmith.runner.sandbox import run_step

SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL


def test_harness_memfd_is_sealed_against_every_change():
    fd = harness_fd()
    assert fcntl.fcntl(fd, fcntl.F_GET_SEALS) & SEALS == SEALS
    size = os.fstat(fd).st_size
    assert size > 10_000
    rw = os.open(f"/proc/self/fd/{fd}", os.O_RDWR)  # what a holder of it could reopen
    try:
        with pytest.raises(OSError) as e:
            os.pwrite(rw, b"x", 0)
        assert e.value.errno == errno.EPERM
        for n in (0, size + 1):
            with pytest.raises(OSError) as e:
                os.ftruncate(rw, n)
            assert e.value.errno == errno.EPERM
        with pytest.raises(PermissionError):
            mmap.mmap(rw, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    finally:
        os.close(rw)
    assert os.fstat(fd).st_size == size


def test_harness_memfd_is_close_on_exec_and_runs_still_load_it():
    fd = harness_fd()
    assert fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
    res = run_step("def f(x):\n    return x * 2\n", "f", {"x": 21})
    assert res.status == "ok" and res.output == 42, res
    assert harness_fd() == fd  # one per process, not one per run
