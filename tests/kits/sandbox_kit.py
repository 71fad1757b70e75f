"""Helpers for the sandbox suite (imported by its test modules; tests/conftest.py makes it
importable as `sandbox_kit` from the other suites too)."""

import os
import socket
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


def my_children() -> list[tuple[int, str, str]]:
    """(pid, state, command line) of every process whose parent is this test process (zombies
    too): the command line says which part left it when a test fails."""
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
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                cmd = ""
            out.append((int(name), rest[0], cmd))
    return out


def new_marker() -> str:
    return "stepsmith-probe-" + uuid.uuid4().hex


def run_parallel(calls):
    """Run zero-argument callables concurrently (sandboxes are independent)."""
    with ThreadPoolExecutor(max_workers=max(2, len(calls))) as pool:
        futures = [pool.submit(c) for c in calls]
        return [f.result() for f in futures]


def alive(pid: int) -> bool:
    """Whether a process (a spare sandbox, a server's child) still exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


#: A step that writes its `forged` argument to every descriptor the result pipe may be (3-9)
#: and exits before the harness can: the "result" a hostile step that finds the fd sends in the
#: harness's place. Full Python: run it unvalidated.
FORGE_STEP = '''
import os
def f(forged):
    for fd in range(3, 10):
        try:
            os.write(fd, forged.encode())
        except OSError:
            pass
    os._exit(0)
'''


def ask_proxy(socket_path: str, target: str, timeout: float = 10.0) -> bytes:
    """The egress proxy's whole answer to `CONNECT target`, asked over its unix socket (the
    way a sandboxed step reaches it; no traffic leaves the machine)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(socket_path)
    s.sendall(b"CONNECT %s HTTP/1.1\r\n\r\n" % target.encode())
    data = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    s.close()
    return data
