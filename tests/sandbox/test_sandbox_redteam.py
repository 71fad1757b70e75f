"""Red-team findings against the OS sandbox alone (run_unvalidated: full Python, no
validator, real builtins). Each test is a regression test for an escape that worked."""

import errno
import json
import os
import platform
import subprocess
import time

import pytest
from sandbox_kit import new_marker, sandbox_pids_with
from stepsmith.runner.sandbox import Limits, run_unvalidated


def ok(res):
    assert res.status == "ok", (res.status, res.message, res.error)
    return res.output


def test_no_host_kernel_setting_is_writable_through_proc():
    # The worst finding. The sandbox's uid is the runner's on the host; as root, every sysctl
    # under /proc/sys opened for writing, and kernel.core_pattern took a write (the host runs
    # that pipe program as root on any core dump: a full host escape). Only *opens* here:
    # a regression must not change the host.
    src = '''
import os
def f():
    writable, seen = [], 0
    stack = ["/proc/" + e for e in os.listdir("/proc")
             if not e.isdigit() and e not in ("self", "thread-self")]
    while stack:
        p = stack.pop()
        try:
            if os.path.islink(p):
                continue
            if os.path.isdir(p):
                stack.extend(p + "/" + e for e in os.listdir(p))
                continue
        except OSError:
            continue
        seen += 1
        try:
            os.close(os.open(p, os.O_WRONLY | os.O_NONBLOCK))
            writable.append(p)
        except OSError:
            pass
    return {"seen": seen, "writable": writable}
'''
    out = ok(run_unvalidated(src, "f", {}, limits=Limits(cpu_seconds=4, wall_seconds=20)))
    assert out["seen"] > 10  # /proc is there (cpuinfo, meminfo, ...)
    assert out["writable"] == []


def test_the_step_is_alone_in_its_pid_namespace():
    # Before: bwrap's monitor was pid 1 of the namespace, outside the harness's rlimits, and the
    # step (same uid, dumpable) could open /proc/1/mem read-write and run code in it.
    src = '''
import os
def f():
    return {"me": os.getpid(), "pids": sorted(p for p in os.listdir("/proc") if p.isdigit())}
'''
    out = ok(run_unvalidated(src, "f", {}))
    assert out == {"me": 1, "pids": ["1"]}


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86_64 shellcode")
def test_code_injected_into_another_sandbox_process_cannot_outlive_the_call():
    # The escape that worked: write code at the syscall return address of every other process
    # in the namespace (prctl(PR_SET_PDEATHSIG, 0); setsid(); pause() forever) through
    # /proc/<pid>/mem. The hijacked bwrap monitor left the process group, ignored its parent's
    # death and stayed alive on the host after the call returned.
    marker = new_marker()
    src = r'''
import os
def f():
    shellcode = bytes([0xbf, 1, 0, 0, 0, 0x31, 0xf6, 0xb8, 157, 0, 0, 0, 0x0f, 0x05,
                       0xb8, 112, 0, 0, 0, 0x0f, 0x05, 0xb8, 34, 0, 0, 0, 0x0f, 0x05, 0xeb, 0xf7])
    hit = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            ip = int(open("/proc/%s/syscall" % pid).read().split()[-1], 16)
            fd = os.open("/proc/%s/mem" % pid, os.O_RDWR)
            os.lseek(fd, ip, 0)
            os.write(fd, shellcode)
            hit.append(pid)
        except (OSError, ValueError, IndexError):
            pass
    return hit
'''
    t = time.monotonic()
    res = run_unvalidated(src, "f", {}, connections={"probe": marker})
    assert time.monotonic() - t <= Limits().wall_seconds + 1.0
    assert res.status in ("ok", "wall_limit"), res
    assert sandbox_pids_with(marker) == []


def test_step_that_leaves_the_group_and_drops_its_death_signal_is_still_killed():
    # With the step as the namespace's init, it could itself clear --die-with-parent (now
    # refused by seccomp) and leave bwrap's process group; the parent's SIGKILL through the
    # init's pidfd stops it whatever it did.
    marker = new_marker()
    src = '''
import ctypes, os
def f():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, 0, 0, 0, 0)          # PR_SET_PDEATHSIG: none
    try:
        os.setsid()
    except OSError:
        pass
    r, w = os.pipe()
    os.read(r, 1)                      # block forever
'''
    t = time.monotonic()
    res = run_unvalidated(src, "f", {}, connections={"probe": marker})
    assert res.status == "wall_limit", res
    assert time.monotonic() - t <= Limits().wall_seconds + 1.0
    assert sandbox_pids_with(marker) == []


_ORPHAN_RUNNER = r'''
import sys
from stepsmith.runner.sandbox import run_unvalidated
src = """
import ctypes, os
def f():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, 0, 0, 0, 0)          # PR_SET_PDEATHSIG: none (refused)
    r, w = os.pipe()
    os.read(r, 1)
"""
run_unvalidated(src, "f", {}, connections={"probe": sys.argv[1]})
'''


def test_sandbox_dies_with_a_killed_runner_even_if_it_clears_its_death_signal():
    # Before: the step cleared its parent-death signal with prctl; when the runner was
    # SIGKILLed (no finally, no parent kill) the sandbox lived on, orphaned.
    import sys

    marker = new_marker()
    runner = subprocess.Popen([sys.executable, "-c", _ORPHAN_RUNNER, marker])
    try:
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline and len(sandbox_pids_with(marker)) < 2:
            time.sleep(0.05)
        time.sleep(0.3)  # the step is past its prctl
    finally:
        runner.kill()
        runner.wait()
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and sandbox_pids_with(marker):
        time.sleep(0.05)
    left = sandbox_pids_with(marker)
    for pid in left:  # clean up what this test started before failing
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    assert left == []


def test_death_signal_cannot_be_cleared():
    src = '''
import ctypes
def f():
    libc = ctypes.CDLL(None, use_errno=True)
    r = libc.prctl(1, 0, 0, 0, 0)
    return [r, ctypes.get_errno()]
'''
    assert ok(run_unvalidated(src, "f", {})) == [-1, errno.EPERM]


def test_kill_minus_one_reaches_nothing_outside_the_sandbox():
    canary = subprocess.Popen(["sleep", "60"])  # same uid as the runner (the sandbox maps to it)
    try:
        src = '''
import os, signal
def f():
    out = {}
    for target in (-1, 0):
        try:
            os.kill(target, signal.SIGKILL)
            out[str(target)] = "sent"
        except OSError as e:
            out[str(target)] = e.errno
    return out
'''
        res = run_unvalidated(src, "f", {})
        assert res.status in ("ok", "error", "cpu_limit"), res
        time.sleep(0.1)
        assert canary.poll() is None, "a host process was killed from inside the sandbox"
    finally:
        canary.kill()
        canary.wait()


def test_sysv_and_posix_ipc_refused():
    # Before: 8 x 128 MiB SysV segments, each attached, filled and detached, kept 1 GiB of
    # kernel memory under a 256 MiB RLIMIT_AS.
    src = '''
import ctypes
def f():
    libc = ctypes.CDLL(None, use_errno=True)
    out = {}
    def call(name, *args):
        r = getattr(libc, name)(*args)
        out[name] = ctypes.get_errno() if r == -1 else r
    call("shmget", 0, 128 << 20, 0o1600)
    call("msgget", 0, 0o1600)
    call("semget", 0, 1, 0o1600)
    call("mq_open", b"/q", 0o100 | 2, 0o600, None)
    return out
'''
    out = ok(run_unvalidated(src, "f", {}))
    assert out == {"shmget": errno.EPERM, "msgget": errno.EPERM, "semget": errno.EPERM,
                   "mq_open": errno.EPERM}


def test_open_files_are_capped_so_pipes_cannot_pin_kernel_memory():
    # Before: RLIMIT_NOFILE was inherited (20000 here); each pipe pins up to 1 MiB of kernel
    # memory that RLIMIT_AS does not count.
    src = '''
import os, resource
def f():
    n = 0
    try:
        while n < 10000:
            os.pipe()
            n += 1
    except OSError as e:
        err = e.errno
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
        raised = True
    except (ValueError, OSError):
        raised = False
    return {"pipes": n, "err": err, "limit": resource.getrlimit(resource.RLIMIT_NOFILE),
            "raised": raised}
'''
    out = ok(run_unvalidated(src, "f", {}))
    assert out["pipes"] < 64 and out["err"] == errno.EMFILE
    assert out["limit"] == [64, 64] and out["raised"] is False


def test_a_forged_result_on_the_result_fd_gains_nothing():
    # The result fd is findable (/proc/self/fd) by full Python: a forged result is at most
    # what returning a value gives -- still redacted, effects still checked, no parent-only
    # status.
    secret = "tok-" + new_marker()
    src = '''
import os
def f(connections, forged):
    os.write(3, forged.encode())
    os._exit(0)
'''
    forged = {"status": "ok", "output": {"leak": secret}, "effects": []}
    res = run_unvalidated(src, "f", {"forged": json.dumps(forged)},
                          connections={"xero": secret})
    assert res.status == "ok" and res.output == {"leak": "[redacted:xero]"}
    assert secret not in json.dumps(res.to_json())
    forged = {"status": "ok", "output": 1,
              "effects": [{"effect": "pay_everyone", "key": None, "payload": {}}]}
    res = run_unvalidated(src, "f", {"forged": json.dumps(forged)})
    assert res.status == "error" and "not declared" in res.message
    res = run_unvalidated(src, "f", {"forged": json.dumps({"status": "cpu_limit"})})
    assert res.status == "error" and res.error["type"] == "SandboxError"


def test_memory_addresses_are_reproducible_between_sandboxes():
    # Before: `repr(f)`, `hash(object())`, iterator reprs (all legal in the dialect) carried
    # ASLR-randomised addresses, so the same request gave a different output every run.
    from stepsmith.runner.sandbox import cmdline, run_step

    if not cmdline.layout()["prefix"]:
        # best effort where setarch (util-linux) is missing or refused; never in CI, where
        # scripts/setup installs it and a missing one must not hide the finding
        why = "setarch unavailable or refused: ASLR stays on (best effort)"
        if os.environ.get("STEPSMITH_STRICT") == "1":
            pytest.fail(f"{why}; STEPSMITH_STRICT=1 needs it: apt-get install util-linux")
        pytest.skip(why)
    src = "def f(x):\n    return [repr(lambda: 0), hash(object()), repr(iter([x]))]\n"
    outs = {json.dumps(run_step(src, "f", {"x": 1}).output) for _ in range(3)}
    assert len(outs) == 1, outs


def test_id_is_not_a_builtin_of_a_restricted_step():
    from stepsmith.runner import sandbox

    res = sandbox._execute("def f():\n    return id([])\n", "f", {}, filename="s.py",
                           validate=False, restricted=True, limits=Limits())
    assert res.status == "error" and res.error["type"] == "NameError", res


def test_kernel_attack_surface_refused_by_number():
    # Raw syscall numbers (x86_64): what libc wrappers might not expose.
    if platform.machine() != "x86_64":
        pytest.skip("x86_64 syscall numbers")
    src = '''
import ctypes
def f():
    libc = ctypes.CDLL(None, use_errno=True)
    numbers = {"io_uring_setup": 425, "userfaultfd": 323, "perf_event_open": 298, "bpf": 321,
               "keyctl": 250, "add_key": 248, "process_vm_readv": 310, "pidfd_getfd": 438,
               "kcmp": 312, "personality": 135, "fanotify_init": 300, "open_by_handle_at": 304,
               "shmget": 29, "msgget": 68, "semget": 64, "mq_open": 240}
    out = {}
    for name, nr in numbers.items():
        r = libc.syscall(nr, 0, 0, 0, 0, 0)
        out[name] = ctypes.get_errno() if r == -1 else r
    return out
'''
    out = ok(run_unvalidated(src, "f", {}))
    assert all(v == errno.EPERM for v in out.values()), out


def test_live_egress_does_not_reach_host_loopback_services():
    import http.server
    import socketserver
    import threading

    from stepsmith.runner.sandbox import run_step
    from stepsmith.runner.validator import StepUse

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"host-loopback-only")

        def log_message(self, *args):
            pass

    srv = socketserver.TCPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        src = ("import urllib.request\n\n\ndef fetch(url):\n"
               "    return urllib.request.urlopen(url, timeout=2).read().decode()\n")
        res = run_step(src, "fetch", {"url": "http://127.0.0.1:%d/" % srv.server_address[1]},
                       uses=[StepUse("fetch", "fetch", "public_egress")], live_network=True)
    finally:
        srv.shutdown()
        srv.server_close()
    assert res.output != "host-loopback-only"


def test_restricted_getattr_does_not_hand_out_shape_ruled_methods():
    # Defence in depth for SS204 (validator off, restricted builtins on).
    from stepsmith.runner import sandbox

    src = ("def f(t, x):\n    out = []\n"
           "    for name in ('format', 'format_map', 'now', 'today', 'utcnow', 'samples'):\n"
           "        try:\n            getattr(t, name)\n            out.append(name)\n"
           "        except AttributeError:\n            pass\n    return out\n")
    res = sandbox._execute(src, "f", {"t": "{0.__class__}", "x": 1}, filename="s.py",
                           validate=False, restricted=True, limits=Limits())
    assert res.status == "ok" and res.output == [], res
