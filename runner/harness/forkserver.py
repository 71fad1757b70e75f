"""The fork server: one sandbox judging many runs of one step (the fixture-strength judge).

It runs INSIDE the sandbox, as its pid 1, never in the runner's process: the parent
(sandbox/forks.py) ships this file's text on stdin after FORK_BOOTSTRAP, which loaded the
harness frame from the harness memfd as every validated sandbox does. It executes the harness
exactly as a spare (inside.py, REQ None) with its own READ: the harness asks READ for its
request. In this process READ never returns: it serves the
requests on stdin one after the other, each in a FORKED child, and exits when they are done.
In a child, READ returns that child's request and the harness goes on as in any sandbox:
rlimits from the request (CPU, memory, files, processes, ...), the pinned clock and zone,
the code check, the step, one result on its result fd.

Why a child is as contained as a fresh sandbox's process: the same bwrap arguments,
interpreter, harness and limits; before READ returns, the child points the harness's result
fd at a pipe of its own (it holds no descriptor of the server's channel or of its stdin) and
loads CHILD_BPF on top of the sandbox's filter, so the two together forbid exactly what a
fresh sandbox's filter does (no fork, vfork, clone, clone3); a child that cannot load it
exits before any step code. Each child starts from the server's state, never from another
child's: nothing a step does (a module-level cache, a changed global, the decimal context)
reaches the next one. The server, as pid 1 of the pid namespace, cannot be signalled from a
child; it kills a child past its wall time (SIGKILL) or past its output cap, and reports per
child what a sandbox's parent sees of a sandbox: the result bytes, the exit status (128 +
signal when killed), its own kills, the wall and CPU time, for the parent to read with the
same code as any sandbox's (interpret.py): it trusts none of it.

Stream in: 8-byte big-endian length frames. On stdin the child filter (BPF bytes), then the
standard modules to import before forking (names, space-separated). Then the runs, on their
own pipe (RUNS, which becomes the server's stdin): one marshal((wall seconds, output cap,
request bytes)) each, for as long as the parent sends them (it sends a mutant's next
fixture once it has read the previous verdicts, so one sandbox serves a whole mutants run);
an empty frame or the pipe's end stops the server. Out, on the answers pipe (ANSWERS, which
replaces the harness's result fd in the server), per run in order, plain integers (the
parent unmarshals nothing from a sandbox): the result's length (8 bytes), the exit status
(4, signed), the server's kills (1: 1 wall, 2 output), wall and CPU microseconds (8 each),
the result.
"""

# ruff: noqa: F821, S102  (HARNESS, ARGS, RD, RUNS and ANSWERS come from FORK_BOOTSTRAP)

import marshal
import posix
import time

_SIGKILL = 9
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


def _frame():
    n = int.from_bytes(RD(8), "big")
    return bytes(RD(n)) if n else b""


def _seccomp_loader(prog):
    """A function loading `prog` (raw BPF) as a seccomp filter of the calling process: True
    when the kernel took it. Everything it needs is built here, before any fork."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(prog, len(prog))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(prog) // 8, ctypes.addressof(buf))
    prctl = libc.prctl
    prctl.restype = ctypes.c_int

    def load(keep=buf):  # the program's memory lives as long as this function
        return prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0

    return load


def _write(fd, data):
    view = memoryview(data)
    while view:
        view = view[posix.write(fd, view):]


def _supervise(pid, out_r, wall, cap):
    """Read the child's result until it ends, its wall time passes or its output passes
    `cap`; kill it then. (result, exit status, wall killed, output killed, cpu)."""
    import select

    deadline = time.monotonic() + wall
    pidfd = posix.pidfd_open(pid)
    poller = select.poll()
    poller.register(out_r, select.POLLIN | select.POLLHUP | select.POLLERR)
    poller.register(pidfd, select.POLLIN)
    out = bytearray()
    reading, exited = True, False
    wall_killed = output_killed = False
    while reading or not exited:
        left = deadline - time.monotonic()
        if left <= 0:
            wall_killed = True
            break
        for fd, _ in poller.poll(left * 1000 + 1):
            if fd == pidfd:
                exited = True
                poller.unregister(pidfd)
                continue
            chunk = posix.read(out_r, 65536)
            if not chunk:
                reading = False
                poller.unregister(out_r)
                continue
            out += chunk
            if len(out) > cap:
                output_killed = True
        if output_killed:
            break
    if wall_killed or output_killed or not exited:
        try:
            posix.kill(pid, _SIGKILL)
        except OSError:
            pass
    _, status, usage = posix.wait4(pid, 0)
    posix.close(pidfd)
    posix.close(out_r)
    if posix.WIFSIGNALED(status):
        code = 128 + posix.WTERMSIG(status)
    else:
        code = posix.WEXITSTATUS(status)
    return bytes(out), code, wall_killed, output_killed, usage.ru_utime + usage.ru_stime


def _warm():
    """compile()'s one-time set-up (the `ast` node types it checks its argument against,
    most of a first compile's cost) done once here rather than in every child. The server
    compiles no step code and runs none."""
    try:
        compile("pass", "<warm>", "exec", dont_inherit=True)
    except BaseException:  # noqa: BLE001, S110 - then each child pays it
        pass


def _serve(harness):
    """The server's loop; returns in a child only, with that child's request."""
    channel = harness["_RESULT_FD"]
    load_filter = _seccomp_loader(_frame())
    # the standard modules the step imports, imported once here rather than in every
    # child (a child's import of `decimal` was half its CPU time); their facades are still
    # built per child, from its own request
    for name in _frame().decode("ascii").split():
        __import__(name)
    # the runs and their answers move to pipes of their own (stdin and stdout belong to the
    # sandbox's supervision): RUNS becomes stdin, ANSWERS the result fd, neither kept twice
    posix.dup2(RUNS, 0)
    posix.close(RUNS)
    posix.dup2(ANSWERS, channel, inheritable=False)
    posix.close(ANSWERS)
    warm = True
    while True:
        try:
            run = _frame()
        except EOFError:  # the parent is done (or gone)
            run = b""
        if not run:
            posix._exit(0)
        wall, cap, request = marshal.loads(run)
        if warm:
            warm = False
            _warm()
        out_r, out_w = posix.pipe()
        started = time.monotonic()
        pid = posix.fork()
        if pid == 0:
            posix.close(out_r)  # (stdin: the harness points it at /dev/null once READ returns)
            posix.dup2(out_w, channel, inheritable=False)
            posix.close(out_w)
            if not load_filter():
                posix._exit(70)  # no step code without the filter
            return request
        posix.close(out_w)
        out, code, wall_killed, output_killed, cpu = _supervise(pid, out_r, wall, cap)
        seconds = time.monotonic() - started
        _write(channel, len(out).to_bytes(8, "big") + code.to_bytes(4, "big", signed=True)
               + (wall_killed | output_killed << 1).to_bytes(1, "big")
               + int(seconds * 1e6).to_bytes(8, "big") + int(cpu * 1e6).to_bytes(8, "big")
               + out)


_PENDING = []


def _read(n):
    """The harness's READ: the first call (the request's length) serves; in a child it
    answers with that child's request, length first."""
    if not _PENDING:
        request = _serve(_HARNESS_NS)
        _PENDING.append(request)
        return len(request).to_bytes(8, "big")
    return _PENDING.pop()


_HARNESS_NS = {"__name__": "__stepsmith_harness__", "ARGS": ARGS, "READ": _read}
exec(HARNESS, _HARNESS_NS)
posix._exit(0)  # a child, its result written: no interpreter teardown (the server never
#                 gets here: it exits in _serve)
