"""Many prepared runs of one step judged in ONE sandbox, each in a forked child (the
fixture-strength judge, runner/app/mutants.py; mutmut's fork-per-mutant inside our boundary).

The sandbox is started as every validated sandbox is (cmdline.command: the same bwrap
arguments, pinned interpreter, harness memfd and request format), with two differences: its
seccomp filter lets its pid 1 fork processes (`seccomp.bpf(forks=True)`; threads stay
refused) and its bootstrap runs the fork server (harness/forkserver.py), which forks one
child per run; the child loads `seccomp.child_bpf()` before any step code, so step code runs
under what a fresh sandbox forbids, with the harness's own per-run rlimits, and the server
enforces each run's wall time and output cap as process.py does for a sandbox. What comes
back per child is read exactly as a sandbox's output (interpret.conclude). A run the server
did not answer (it could not start, load ctypes, or died) runs in a fresh sandbox instead: a
run never goes without a sandbox, and never without an answer.
"""

from __future__ import annotations

import ast
import marshal
import os
import select
import threading
import time
from pathlib import Path

from ..harness import SPARE_BOOTSTRAP, bundle, harness_fd
from ..validator.policy import ALLOWED_MODULES
from . import cmdline, process, seccomp
from .prepared import Prepared, launch
from .result import StepResult

_SERVER_SOURCE = Path(__file__).resolve().parent.parent / "harness" / "forkserver.py"
_EXEC = "exec(c,{'__name__':'__stepsmith_harness__','ARGS':a,'READ':rd})\n"
assert SPARE_BOOTSTRAP.endswith(_EXEC)
#: SPARE_BOOTSTRAP's reader and harness frame, then the fork server's text from stdin (it
#: runs the harness itself, with its own READ)
FORK_BOOTSTRAP = SPARE_BOOTSTRAP[:-len(_EXEC)] + (
    "s=rd(int.from_bytes(rd(8),'big'))\n"
    "exec(compile(bytes(s),'<stepsmith-forkserver>','exec'),"
    "{'__name__':'__stepsmith_forks__','HARNESS':c,'ARGS':a,'RD':rd,"
    "'RUNS':int(sys.argv[2]),'ANSWERS':int(sys.argv[3])})\n")
_SLACK = 2.0  # seconds per run above its wall limit: the server's fork, kill and report (over
# 0.5 s at load 8 on 2 cores; a late answer only sends the run to a fresh sandbox)
_LIFE = 24 * 3600.0  # the sandbox's own wall: each run has its deadline (ForkServer._read)
_CHUNK = 65536  # the most the server reads of a child's result past its cap


def imports_of(source: str) -> list[str]:
    """The dialect's standard modules `source` imports (validator/policy.py), which the
    server imports before it forks."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module)
    return sorted(names & ALLOWED_MODULES)


def _raw(data: bytes) -> bytes:
    return len(data).to_bytes(8, "big") + data


def run_forked(runs: list[Prepared]) -> list[StepResult]:
    """Each prepared run's StepResult, in order; the runs are of one interpreter, framed
    (validated), offline. One sandbox for all of them (see the module's text)."""
    if not runs:
        return []
    server = ForkServer(runs[0].interp, imports_of(runs[0].source))
    try:
        return server.run(runs)
    finally:
        server.close()


class _Own(process.Group):
    """A fork server's sandbox: killed by its parent (a run past its deadline, a broken
    answer) or with the caller's group (an editor's cancelled run)."""

    def __init__(self, outer: process.Group | None) -> None:
        super().__init__()
        self.outer = outer

    def _add(self, pid: int) -> bool:
        mine = super()._add(pid)
        return (self.outer is None or self.outer._add(pid)) and mine

    def _discard(self, pid: int) -> None:
        super()._discard(pid)
        if self.outer is not None:
            self.outer._discard(pid)


class ForkServer:
    """One fork-server sandbox answering `run` calls until `close`: it starts at once (the
    interpreter, the harness and `imports` load while the caller prepares its runs, as a
    spare does), and each call streams its runs to it. `group`: the caller's, which a
    cancelled run kills (default: the calling thread's `process.joined` group)."""

    def __init__(self, interp, imports: list[str] = (), *, group=None) -> None:
        self.interp = interp
        self.harness = bundle(interp)["sha256"]  # the harness its children run
        self.trusted: dict[str, bool] = {}  # the caller's own notes (the judge's controls)
        self.dead = False
        self._own = _Own(group if group is not None else process.current_group())
        self._done = threading.Event()
        runs_r, self._runs_w = os.pipe()
        self._answers_r, answers_w = os.pipe()
        sfd = None
        try:
            payload = (_raw(_SERVER_SOURCE.read_bytes()) + _raw(seccomp.child_bpf())
                       + _raw(" ".join(imports).encode("ascii")))
            sfd = seccomp.memfd_with(seccomp.bpf(False, forks=True), "stepsmith-seccomp")
            shared = harness_fd(interp)
            # the placeholder clock, as a spare's: each child's request sets its own
            cmd = cmdline.command(live_network=False, faketime_spec="0", seccomp_fd=sfd,
                                  args_fd=None, bootstrap=FORK_BOOTSTRAP,
                                  bootstrap_args=(str(shared), str(runs_r), str(answers_w)),
                                  interp=interp)
        except BaseException:
            for fd in (runs_r, answers_w, sfd):
                if fd is not None:
                    os.close(fd)
            self._done.set()
            self.close()
            raise
        self._thread = threading.Thread(
            target=self._supervise, args=(cmd, payload, (sfd, shared, runs_r, answers_w)),
            name="stepsmith-forkserver", daemon=True)
        self._thread.start()

    def _supervise(self, cmd, payload: bytes, fds: tuple[int, ...]) -> None:
        """The sandbox's whole life, supervised as any sandbox's (process.supervise)."""
        try:
            with process.joined(self._own):
                process.supervise(cmd, payload, fds, wall=_LIFE, output_cap=1 << 20,
                                  interp=self.interp)
        except Exception:  # noqa: BLE001, S110 - no server: its runs go to fresh sandboxes
            pass
        finally:
            for fd in (fds[0], *fds[2:]):  # (the harness memfd is shared: kept)
                os.close(fd)
            self.dead = True
            self._done.set()

    def run(self, runs: list[Prepared]) -> list[StepResult]:
        """Each prepared run's StepResult, in order (of this server's interpreter, framed,
        offline); a run the server did not answer is made in a fresh sandbox."""
        assert all(p.framed and not p.live_network and p.interp == self.interp for p in runs)
        answers: list[StepResult | None] = [None] * len(runs)
        if not self.dead:
            try:
                outcomes = self._exchange(runs)
            except (OSError, ValueError):
                outcomes = []
                self.kill()
            for i, o in enumerate(outcomes):
                runs[i].t0 = time.monotonic() - o.duration_s  # the child's time
                answers[i] = runs[i].conclude(o)
        return [a if a is not None else launch(p) for a, p in zip(answers, runs, strict=True)]

    def _exchange(self, runs: list[Prepared]) -> list:
        """Send the runs, read their outcomes as they come: each must arrive within its wall
        limit (and the server's slack) of the one before, whole and within its cap, or the
        server is killed and the rest go unanswered."""
        data = memoryview(b"".join(
            _raw(marshal.dumps((float(p.limits.wall_seconds), int(p.cap),
                                marshal.dumps(p.request, 4)), 4)) for p in runs))
        out: list = []
        buf = bytearray()
        poller = select.poll()
        poller.register(self._answers_r, select.POLLIN)
        os.set_blocking(self._runs_w, False)
        if data:
            poller.register(self._runs_w, select.POLLOUT)
        os.set_blocking(self._answers_r, False)
        since = time.monotonic()
        while len(out) < len(runs):
            p = runs[len(out)]
            left = since + p.limits.wall_seconds + _SLACK - time.monotonic()
            if left <= 0:
                break
            gone = self._done.is_set()  # read what it wrote before it ended, then stop
            events = [(self._answers_r, 0)] if gone else poller.poll(min(left, 0.05) * 1000 + 1)
            for fd, _ in events:
                if fd == self._runs_w:
                    try:
                        data = data[os.write(self._runs_w, data[:1 << 16]):]
                    except BlockingIOError:
                        continue
                    if not data:
                        poller.unregister(self._runs_w)
                    continue
                try:
                    while chunk := os.read(self._answers_r, 1 << 16):
                        buf += chunk
                except BlockingIOError:
                    pass
            got = _outcomes(bytes(buf), len(runs) - len(out), [q.cap + _CHUNK for q in
                                                                 runs[len(out):]])
            if got is None:
                raise ValueError("a fork server's answer is over its run's cap")
            if got[0]:
                out += got[0]
                del buf[:got[1]]
                since = time.monotonic()
            elif gone:
                break
        if len(out) < len(runs):
            self.kill()
        return out

    def current(self) -> bool:
        """Alive, and holding the current harness (a kept server started before the harness
        was rebuilt is not used again)."""
        return not self.dead and self.harness == bundle(self.interp)["sha256"]

    def pids(self) -> list[int]:
        """Its sandbox's pid (bwrap's), while it runs."""
        return self._own.pids()

    def adopt(self, group) -> None:
        """Answer to `group` from now on (a server kept for many runs serves each in turn):
        that group's kill ends it; None: no caller's."""
        old, pids = self._own.outer, self._own.pids()
        if old is group:
            return
        for pid in pids:
            if old is not None:
                old._discard(pid)
        self._own.outer = group
        if group is not None and not all([group._add(pid) for pid in pids]):
            self.kill()  # that run was cancelled meanwhile

    def kill(self) -> None:
        self.dead = True
        self._own.kill()
        self._thread.join(10)

    def stop(self) -> None:
        """No more runs: the server exits at the end of its runs pipe (`close` waits)."""
        if self._runs_w is not None:
            os.close(self._runs_w)
            self._runs_w = None

    def close(self) -> None:
        """`stop`, and nothing of the server outlives the call."""
        self.stop()
        thread = getattr(self, "_thread", None)
        if thread is not None:
            thread.join(5)
            if thread.is_alive():
                self.kill()
        if self._answers_r is not None:
            os.close(self._answers_r)
            self._answers_r = None


_HEAD = 29  # forkserver.py: length 8, exit status 4, kills 1, wall and CPU microseconds 8+8


def _outcomes(data: bytes, most: int, caps: list[int]) -> tuple[list, int] | None:
    """(the per-child outcomes in the server's output as far as they are whole, the bytes
    they took); None when one says it is longer than its run's cap allows or is malformed."""
    out, at = [], 0
    while len(out) < most and at + _HEAD <= len(data):
        n = int.from_bytes(data[at:at + 8], "big")
        code = int.from_bytes(data[at + 8:at + 12], "big", signed=True)
        kills = data[at + 12]
        seconds = int.from_bytes(data[at + 13:at + 21], "big") / 1e6
        cpu = int.from_bytes(data[at + 21:at + 29], "big") / 1e6
        if n > caps[len(out)] or kills > 3:
            return None
        body = data[at + _HEAD:at + _HEAD + n]
        if len(body) != n:
            break
        at += _HEAD + n
        out.append(process.Outcome(body, b"", code, bool(kills & 1), bool(kills & 2),
                                   seconds, cpu))
    return out, at
