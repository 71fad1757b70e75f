"""The seccomp filter's own refusals, by raw syscall number (x86_64), with full Python
(run_unvalidated): each must be EPERM from the filter, not an error the kernel or an rlimit
would give anyway (RLIMIT_NPROC=0 answers fork with EAGAIN). Issue 18 item 5: the mutation
table found that dropping the fork/vfork and memfd_create rules passed every test, because
glibc's fork() is the clone syscall and no test called memfd_create."""

from __future__ import annotations

import errno
import platform

import pytest
from stepsmith.runner.sandbox import run_unvalidated

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="x86_64 syscall numbers")

SRC = '''
import ctypes, os
def f():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    out = {}
    for name, nr, args in [("fork", 57, ()), ("vfork", 58, ()),
                           ("memfd_create", 319, (ctypes.c_char_p(b"x"), 0))]:
        ctypes.set_errno(0)
        r = libc.syscall(nr, *args)
        if r == 0 and name in ("fork", "vfork"):
            os._exit(0)  # a child, had the filter let one through: gone at once
        out[name] = ctypes.get_errno() if r == -1 else ("returned", r)
    return out
'''


def test_fork_vfork_and_memfd_create_are_refused_by_the_filter_itself():
    res = run_unvalidated(SRC, "f", {})
    assert res.status == "ok", (res.status, res.message)
    assert res.output == {"fork": errno.EPERM, "vfork": errno.EPERM,
                          "memfd_create": errno.EPERM}, res.output
