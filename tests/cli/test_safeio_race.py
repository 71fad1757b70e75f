"""`safeio.write_atomic` / `unlink` / no-symlink reads against a concurrent local
writer (root running stepsmith in someone else's checkout). A race harness exchanges a folder of
the workflow with a symlink to a folder outside it, atomically (renameat2 RENAME_EXCHANGE), as
fast as it can while stepsmith writes, removes and reads there. Checking a path and then
using it by path lets some operations land outside; walking with O_NOFOLLOW directory fds and
renameat/unlinkat/openat lets none."""

from __future__ import annotations

import ctypes
import os
import time

import pytest
from stepsmith.runner import safeio

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_libc = ctypes.CDLL(None, use_errno=True)


def _exchange(a: bytes, b: bytes) -> None:
    if _libc.renameat2(_AT_FDCWD, a, _AT_FDCWD, b, _RENAME_EXCHANGE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


SWAP = """
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
sys.stdout.write("ready\\n"); sys.stdout.flush()
while True:
    libc.renameat2(-100, a, -100, b, 2)
"""


class Swapper:
    """Exchanges `inside` (a real folder) and `spare` (a symlink to `outside`) until stopped,
    from a process of its own (a thread would wait for the GIL: far fewer interleavings)."""

    def __init__(self, inside, spare, outside):
        os.symlink(outside, spare)
        self.a, self.b = bytes(inside), bytes(spare)
        self.proc = None
        self.seen_link = self.seen_dir = 0

    def sample(self):
        if os.path.islink(self.a):
            self.seen_link += 1
        else:
            self.seen_dir += 1

    def __enter__(self):
        import subprocess
        import sys

        self.proc = subprocess.Popen([sys.executable, "-c", SWAP, self.a, self.b],
                                     stdout=subprocess.PIPE)
        assert self.proc.stdout.readline() == b"ready\n"
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()
        if os.path.islink(self.a):  # leave the real folder in its place
            _exchange(self.a, self.b)


@pytest.fixture
def layout(tmp_path):
    wf = tmp_path / "wf"
    (wf / "fixtures" / "add").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    return wf, wf / "fixtures" / "add", outside


SECONDS = 2.5


def test_write_atomic_never_writes_outside_while_a_folder_is_swapped(layout):
    wf, inside, outside = layout
    written = refused = 0
    with Swapper(inside, wf / "fixtures" / "spare", outside) as sw:
        end = time.monotonic() + SECONDS
        n = 0
        while time.monotonic() < end:
            n += 1
            sw.sample()
            try:
                safeio.write_atomic(inside / f"case{n % 50}.json", b"{}", root=wf)
                written += 1
            except OSError:
                refused += 1
    assert sw.seen_link and sw.seen_dir, "the harness swapped"
    assert written > 0, (written, refused)
    assert sorted(os.listdir(outside)) == [], "written outside the workflow folder"


def test_unlink_never_removes_outside_while_a_folder_is_swapped(layout):
    wf, inside, outside = layout
    for d in (inside, outside):
        for i in range(20):
            (d / f"victim{i}.json").write_text("{}")
    removed = 0
    with Swapper(inside, wf / "fixtures" / "spare", outside):
        end = time.monotonic() + SECONDS
        n = 0
        while time.monotonic() < end:
            n += 1
            name = f"victim{n % 20}.json"
            try:
                if safeio.unlink(wf, inside / name):
                    removed += 1
            except OSError:
                pass
            try:  # put it back (inside, through the real folder only)
                safeio.write_atomic(inside / name, b"{}", root=wf)
            except OSError:
                pass
    assert removed > 0
    assert sorted(os.listdir(outside)) == sorted(f"victim{i}.json" for i in range(20))


def test_no_symlink_read_never_reads_outside_while_a_folder_is_swapped(layout):
    wf, inside, outside = layout
    (inside / "case.json").write_text('"inside"')
    (outside / "case.json").write_text('"OUTSIDE"')
    seen = set()
    with Swapper(inside, wf / "fixtures" / "spare", outside):
        end = time.monotonic() + SECONDS
        while time.monotonic() < end:
            try:
                seen.add(safeio.read_if_exists(inside / "case.json", root=wf, cap=100))
            except OSError:
                pass
    assert b'"OUTSIDE"' not in seen, seen
    assert b'"inside"' in seen


def test_write_atomic_into_a_symlinked_folder_is_refused_without_a_race(layout):
    wf, inside, outside = layout
    os.symlink(outside, wf / "fixtures" / "pay")
    with pytest.raises(safeio.UnsafePath):
        safeio.write_atomic(wf / "fixtures" / "pay" / "x.json", b"{}", root=wf)
    os.symlink(outside / "target.json", inside / "link.json")
    with pytest.raises(safeio.UnsafePath):
        safeio.write_atomic(inside / "link.json", b"{}", root=wf)
    with pytest.raises(safeio.UnsafePath):
        safeio.unlink(wf, inside / "link.json")
    assert os.listdir(outside) == []
    safeio.write_atomic(inside / "new" / "x.json", b"{}", root=wf)  # folders created
    assert (inside / "new" / "x.json").read_bytes() == b"{}"
    with pytest.raises(FileExistsError):
        safeio.write_atomic(inside / "new" / "x.json", b"[]", root=wf, overwrite=False)
    assert (inside / "new" / "x.json").read_bytes() == b"{}"
    assert [p for p in os.listdir(inside / "new") if p.endswith(".tmp")] == []
