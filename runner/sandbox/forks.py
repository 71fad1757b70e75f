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

import marshal
import os
import time
from pathlib import Path

from ..harness import SPARE_BOOTSTRAP, harness_fd
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
    "{'__name__':'__stepsmith_forks__','HARNESS':c,'ARGS':a,'RD':rd})\n")
_SLACK = 0.5  # seconds per run above its wall limit: the server's fork and reporting


def _imports(source: str) -> list[str]:
    """The dialect's standard modules `source` imports (validator/policy.py), which the
    server imports before it forks."""
    import ast

    from ..validator.policy import ALLOWED_MODULES

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
    from . import cmdline, process, seccomp

    if not runs:
        return []
    interp = runs[0].interp
    assert all(p.framed and not p.live_network and p.interp == interp for p in runs)
    answers: list[StepResult | None] = [None] * len(runs)
    sfd = None
    try:
        payload = bytearray(_raw(_SERVER_SOURCE.read_bytes()))
        payload += _raw(seccomp.child_bpf())
        payload += _raw(" ".join(_imports(runs[0].source)).encode("ascii"))
        payload += _raw(str(len(runs)).encode("ascii"))
        for p in runs:
            payload += _raw(marshal.dumps((float(p.limits.wall_seconds), int(p.cap),
                                           marshal.dumps(p.request, 4)), 4))
        sfd = seccomp.memfd_with(seccomp.bpf(False, forks=True), "stepsmith-seccomp")
        shared = (harness_fd(interp),)
        cmd = cmdline.command(live_network=False, faketime_spec=runs[0].spec, seccomp_fd=sfd,
                              args_fd=None, bootstrap=FORK_BOOTSTRAP,
                              bootstrap_args=tuple(str(fd) for fd in shared), interp=interp)
        wall = sum(p.limits.wall_seconds + _SLACK for p in runs) + 5.0
        cap = sum(p.cap + 64 for p in runs) + 1024
        outcome = process.supervise(cmd, bytes(payload), (sfd, *shared), wall=wall,
                                    output_cap=cap, interp=interp)
        for i, o in enumerate(_outcomes(outcome.stdout, len(runs))):
            p = runs[i]
            p.t0 = time.monotonic() - o.duration_s  # the child's time, not the batch's
            answers[i] = p.conclude(o)
    except (seccomp.SeccompUnavailable, OSError, ValueError):
        pass  # every run left unanswered goes to a fresh sandbox below
    finally:
        if sfd is not None:
            os.close(sfd)
    return [a if a is not None else launch(p) for a, p in zip(answers, runs, strict=True)]


_HEAD = 29  # forkserver.py: length 8, exit status 4, kills 1, wall and CPU microseconds 8+8


def _outcomes(data: bytes, most: int) -> list:
    """The per-child outcomes in the server's output, as far as they are whole."""
    from .process import Outcome

    out, at = [], 0
    while len(out) < most and at + _HEAD <= len(data):
        n = int.from_bytes(data[at:at + 8], "big")
        code = int.from_bytes(data[at + 8:at + 12], "big", signed=True)
        kills = data[at + 12]
        seconds = int.from_bytes(data[at + 13:at + 21], "big") / 1e6
        cpu = int.from_bytes(data[at + 21:at + 29], "big") / 1e6
        body = data[at + _HEAD:at + _HEAD + n]
        if len(body) != n or kills > 3:
            break
        at += _HEAD + n
        out.append(Outcome(body, b"", code, bool(kills & 1), bool(kills & 2), seconds, cpu))
    return out
