"""One fixture's runs against many mutants, in ONE sandbox (sandbox/forks.py: a forked child
per run, each with a `test` run's limits and seccomp filter), compared as `stepsmith test`
compares them (app/case_run.compare).

A fixture run's cost is mostly its sandbox's start-up (bwrap, the interpreter, the harness):
the step's own work is a few milliseconds. Mutants of one step run the same fixtures, so
sharing the start-up is what makes judging them cheap; a run's sandboxes (fork servers,
`Servers`) serve both its rounds, and the editor keeps them from one run to the next. Each
fixture gets a CONTROL run in a sandbox before its mutants do: the fixture on the unmutated
code, in the same sandbox, once per server for that very request and expectation. Its
baseline passed in a fresh sandbox; should the control not pass here (a result that depends
on something a forked child sees differently, such as a memory address in a repr), the
fixture's verdicts from that server are not trusted and its runs go to fresh sandboxes one
by one (app/case_run.run_case), as before.
"""

from __future__ import annotations

import hashlib
import marshal
import threading

from stepsmith.runner.app import case_run
from stepsmith.runner.app.invocations import plain_result
from stepsmith.runner.app.suite import Case, CaseResult
from stepsmith.runner.app.workflow import InvokeError, build_inputs, step_call, step_code
from stepsmith.runner.fixtures.compare import describe_result
from stepsmith.runner.sandbox import prepare_step, process
from stepsmith.runner.sandbox.forks import ForkServer, imports_of
from stepsmith.runner.sandbox.result import StepResult


def _prepared(case: Case, memo: dict | None = None):
    """The case's sandbox.Prepared run, or its CaseResult when it ends before a sandbox.
    `memo` (one batch's): what a fixture's runs share whatever the step file's text (the
    inputs, the call, the file's path, its text when read from disk), worked out once."""
    lw, fx = case.workflow, case.known_fixture()
    shared = memo.get(case.id) if memo is not None else None
    if shared is None:
        step = lw.known_step(case.step_id)
        try:
            code = step_code(lw, step)
            inputs = build_inputs(step, fx.inputs)
            call = step_call(lw, code, evaluation_time=fx.evaluation_time, seed=fx.seed)
        except InvokeError as exc:
            return CaseResult(case=case, outcome="error", messages=[str(exc)])
        shared = (code.path, code.function, inputs, call,
                  None if code.path in lw.texts else code.source)
        if memo is not None:
            memo[case.id] = shared
    path, function, inputs, call, on_disk = shared
    # a mutant's text (or the editor's buffer) where the workflow holds one, as step_code
    source = lw.texts.get(path, on_disk)
    if source is None:  # (read from disk for another case: this one's own read)
        return _prepared(case)
    return prepare_step(source, function, inputs, **call)


def _compared(case: Case, raw) -> CaseResult:
    """A StepResult read as `run_case` reads its sandbox's answer."""
    res = plain_result(raw)
    if res.get("status") == "unavailable":
        return CaseResult(case=case, outcome="error", result=res,
                          messages=describe_result(res) or ["sandbox unavailable"],
                          duration_ms=float(res.get("duration_ms") or 0.0))
    out = case_run.compare(case, res)
    out.duration_ms = float(res.get("duration_ms") or 0.0)
    return out


class Servers:
    """Fork servers (sandbox/forks.ForkServer) per interpreter, for one mutants run or kept
    by the editor for all of its runs: a batch takes an idle one or starts one, and gives it
    back for the next round (or run); `warm` starts some ahead, while the baseline runs. A
    server never runs step code itself (each run is a forked child), so one serving many
    runs is as clean for the last as for the first; each run's controls are made in it
    anew. `imports`: the standard modules the step files import (loaded once per server;
    `add_imports` for servers started later). Ended by `close`."""

    def __init__(self, imports: list[str], group=None, keep: int = 2) -> None:
        self.imports, self.group, self.keep = sorted(imports), group, keep
        self._idle: dict = {}
        self._all: list = []
        self._lock = threading.Lock()
        self._closed = False
        self._last = threading.local()  # the server this thread gave back last

    @staticmethod
    def _key(interp):
        return None if interp is None or getattr(interp, "running", False) else interp.exe

    def add_imports(self, names) -> None:
        with self._lock:
            self.imports = sorted(set(self.imports) | set(names))

    def _start(self, interp):
        server = ForkServer(interp, self.imports, group=self.group)
        with self._lock:
            self._all = [s for s in self._all if not s.dead] + [server]
            closed = self._closed
        if closed:
            server.close()
        return server

    def warm(self, interp, n: int) -> None:
        """`n` idle servers for `interp` (started now as far as there are fewer)."""
        with self._lock:
            have = sum(not s.dead for s in self._idle.get(self._key(interp), []))
        for _ in range(n - have):
            self.give(self._start(interp))

    def take(self, interp):
        """An idle server of `interp` (the one this thread gave back last, when idle: its
        controls are made), or a new one."""
        mine = getattr(self._last, "server", None)
        with self._lock:
            idle = self._idle.get(self._key(interp), [])
            if mine in idle:
                idle.remove(mine)
                idle.insert(0, mine)
            stale = []
            while idle:
                server = idle.pop(0)
                if server.current():
                    break
                stale.append(server)
            else:
                server = None
        for old in stale:
            old.close()
        return server if server is not None else self._start(interp)

    def give(self, server) -> None:
        self._last.server = server
        server.adopt(self.group)
        with self._lock:
            idle = self._idle.setdefault(self._key(server.interp), [])
            keep = not server.dead and not self._closed and len(idle) < self.keep
            if keep:
                idle.append(server)
            else:
                self._all = [s for s in self._all if s is not server]
        if not keep:
            server.close()

    def idle_pids(self) -> list[int]:
        """The sandbox pids of the idle servers kept for the next run (none serves a run:
        a cancel of a run leaves them be)."""
        with self._lock:
            idle = [s for servers in self._idle.values() for s in servers]
        return sorted(pid for s in idle for pid in s.pids())

    def close(self) -> None:
        with self._lock:
            self._closed = True
            servers, self._all, self._idle = self._all, [], {}
        for server in servers:  # all told first: they end side by side
            server.stop()
        for server in servers:
            server.close()


_local = threading.local()


class serving:  # noqa: N801 - used as `with serving(servers):`
    """run_batch calls of this thread take their fork servers from `servers`."""

    def __init__(self, servers: Servers) -> None:
        self.servers = servers

    def __enter__(self) -> Servers:
        self.prev = getattr(_local, "servers", None)
        _local.servers = self.servers
        return self.servers

    def __exit__(self, *exc) -> None:
        _local.servers = self.prev


def run_batch(runs: list[tuple[Case, Case]]) -> list[CaseResult]:
    """Each (fixture, that fixture with a mutant's workflow) run in one sandbox, after a
    control run of each fixture on the unmutated code (once per sandbox); their results in
    order. The runs of a fixture whose control does not pass there go to fresh sandboxes.
    The sandbox: a fork server of the thread's `serving` pool, else one of its own."""
    shared: Servers | None = getattr(_local, "servers", None)
    cases = [m for _c, m in runs]
    memo: dict = {}
    items = [_prepared(c, memo) for c in cases]
    runnable = [p for p in items if not isinstance(p, CaseResult | StepResult)]
    if not runnable:
        return [p if isinstance(p, CaseResult) else _compared(c, p)
                for c, p in zip(cases, items, strict=True)]
    if shared is None:
        servers = Servers(imports_of(runnable[0].source))
    else:
        servers = shared
    server = servers.take(runnable[0].interp)
    server.adopt(process.current_group())  # this run's: its cancel ends it
    try:
        fixtures = {c.id: (c, _prepared(c, memo)) for c, _m in runs}
        # a control counts for the very run it made: this fixture's bytes, this request
        # (the unmutated code, inputs, clock, limits) in this server
        keys = {cid: _control_key(c, p) for cid, (c, p) in fixtures.items()}
        controls = [(c, p) for cid, (c, p) in fixtures.items()
                    if keys[cid] is None or keys[cid] not in server.trusted]
        first = [p for _c, p in controls if not isinstance(p, CaseResult | StepResult)]
        answers = iter(server.run(first + runnable))
        trusted = {}
        for c, p in controls:
            r = p if isinstance(p, CaseResult) else _compared(
                c, p if isinstance(p, StepResult) else next(answers))
            trusted[c.id] = r.outcome == "passed"
            if keys[c.id] is not None:
                server.trusted[keys[c.id]] = trusted[c.id]
        results = [p if isinstance(p, CaseResult) else
                   _compared(c, p if isinstance(p, StepResult) else next(answers))
                   for c, p in zip(cases, items, strict=True)]
    finally:
        servers.give(server)
        if shared is None:
            servers.close()
    return [r if trusted.get(c.id, server.trusted.get(keys[c.id])) else case_run.run_case(m)
            for (c, m), r in zip(runs, results, strict=True)]


def _control_key(case: Case, prepared) -> str | None:
    """What a control's verdict in a server stands for, or None (no sandbox run)."""
    if isinstance(prepared, CaseResult | StepResult) or case.fixture is None:
        return None
    request = hashlib.sha256(marshal.dumps(prepared.request, 4)).hexdigest()
    expected = hashlib.sha256(repr(case.fixture.expected).encode()).hexdigest()
    return f"{case.id}\0{case.fixture.sha256}\0{request}\0{expected}"
