"""Helpers for the sandbox suite (imported by its test modules)."""

import os
import uuid
from concurrent.futures import ThreadPoolExecutor

AT = "2026-12-01T07:00:00+00:00"
AT_EPOCH = 1796108400


def sandbox_pids_with(marker: str) -> list[int]:
    """Host pids whose environment or command line contains `marker`."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        for part in ("environ", "cmdline"):
            try:
                with open(f"/proc/{name}/{part}", "rb") as f:
                    if marker.encode() in f.read():
                        out.append(int(name))
                        break
            except OSError:
                continue
    return out


def my_children() -> list[tuple[int, str]]:
    """(pid, state) of every process whose parent is this test process (zombies too)."""
    me = os.getpid()
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat.rsplit(")", 1)[1].split()
        if int(rest[1]) == me:
            out.append((int(name), rest[0]))
    return out


def new_marker() -> str:
    return "stepsmith-probe-" + uuid.uuid4().hex


def run_parallel(calls):
    """Run zero-argument callables concurrently (sandboxes are independent)."""
    with ThreadPoolExecutor(max_workers=max(2, len(calls))) as pool:
        futures = [pool.submit(c) for c in calls]
        return [f.result() for f in futures]
