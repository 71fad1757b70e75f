"""One run up to its sandbox and into it: `prepare` checks what the parent can refuse before
any sandbox (the interpreter, the pin, inputs that cannot cross, the clock, the zone, the
connections) and builds the harness's request; `launch` runs a prepared request in a fresh
sandbox (a spare when one is waiting) and reads its answer with interpret.conclude. run_step
is both (sandbox/__init__.py); the fixture-strength judge prepares many runs of one step and
hands them to one sandbox (forks.py)."""

from __future__ import annotations

import json
import marshal
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..harness import BOOTSTRAP, SPARE_BOOTSTRAP, BuildFailed, bundle, frame, harness_fd
from ..pythons.pins import mismatch as pin_mismatch
from .boundary import InputError
from .connections import env_name
from .redact import Redactor, finish
from .request import (
    ZoneUnavailable,
    eval_time,
    faketime_spec,
    jsonable,
    normalise_effects,
    tz_variable,
)
from .result import Limits, StepResult

if TYPE_CHECKING:
    from ..pythons.probe import Interpreter
    from . import egress, process
    from .trace import TraceMode


@dataclass
class Prepared:
    """One run up to its sandbox: the request the harness gets and what the parent needs to
    read its answer (interpret.conclude)."""

    request: dict
    source: str
    function: str
    uses: Sequence[tuple]
    limits: Limits
    effects: dict
    tconf: Any
    red: Redactor
    t0: float
    spec: str
    cap: int  # output cap: the result, and the trace's own budget when one is asked for
    framed: bool
    live_network: bool
    connections: dict
    egress_policy: Any
    interp: Any
    bundle: dict

    def conclude(self, outcome: process.Outcome) -> StepResult:
        from . import interpret

        return interpret.conclude(outcome, self.source, self.function, self.uses, self.limits,
                                  self.effects, self.tconf, self.red, self.t0)


def prepare(source: str, function: str, inputs: Mapping[str, Any], *, filename: str,
             evaluation_time=None, seed: int | None = None,
             connections: Mapping[str, str] | None = None, effects_declared: Any = (),
             python: str = "3.11", uses: Sequence[tuple] = (), allow_urllib: bool = False,
             live_network: bool = False, validate: bool, restricted: bool | None = None,
             limits: Limits, _t0: float | None = None,
             timezone: str | None = None, trace: TraceMode | None = None,
             egress_policy: egress.AddressPolicy | None = None,
             interp: Interpreter | None = None) -> StepResult | Prepared:
    """validate: the harness checks the compiled code before executing anything. restricted:
    restricted builtins + facade-only imports (defaults to `validate`; tests probe the
    layers separately). Only run_unvalidated passes validate=False. `interp`: the sandbox's
    interpreter (None: the running one)."""
    from . import cmdline
    from . import trace as _trace

    t0 = time.monotonic() if _t0 is None else _t0
    connections = {str(k): str(v) for k, v in (connections or {}).items()}
    red = Redactor(connections)
    try:
        lay = cmdline.layout(interp)
    except cmdline.Unavailable as exc:
        return finish(StepResult("unavailable", message=str(exc)), red, t0)
    mismatch = pin_mismatch(python, interp)
    if mismatch is not None:
        return finish(StepResult("unavailable", message=mismatch), red, t0)
    if not isinstance(source, str):
        return finish(StepResult("refused", message="step source is not UTF-8 text"), red, t0)
    try:
        if not isinstance(inputs, Mapping):
            raise TypeError("inputs must be a mapping of parameter name to value")
        text = jsonable(dict(inputs))
    except (TypeError, InputError) as exc:  # typed: what cannot cross, and where
        return finish(StepResult("error", error={"type": "InputError", "message": str(exc),
                                                  "traceback": []},
                                  message=f"InputError: {exc}"), red, t0)
    try:
        at = eval_time(evaluation_time, timezone)
    except (TypeError, ValueError) as exc:
        return finish(StepResult("error", error={"type": type(exc).__name__,
                                                  "message": str(exc), "traceback": []},
                                  message=f"bad inputs: {exc}"), red, t0)
    size = len(text.encode("utf-8"))
    if size > limits.input_bytes:
        return finish(StepResult("input_too_large", message=f"inputs are {size} bytes; the "
                                  f"limit is {limits.input_bytes}"), red, t0)
    if seed is not None and not isinstance(seed, int):
        return finish(StepResult("error", message="seed must be an integer"), red, t0)
    try:
        tz = tz_variable(timezone, lay.get("zoneinfo"))
    except ZoneUnavailable as exc:
        return finish(StepResult("unavailable", message=str(exc)), red, t0)
    bad = [a for a, v in connections.items() if "\0" in v or "\0" in a]
    if bad:
        return finish(StepResult("unavailable", message=f"connection {bad[0]!r} holds a NUL "
                                  "character and cannot be passed as an environment variable"),
                       red, t0)
    effects = normalise_effects(effects_declared)
    try:
        b = bundle(interp)
    except BuildFailed as exc:
        return finish(StepResult("unavailable", message=str(exc)), red, t0)
    tconf = _trace.request(trace, source, filename, interp) if trace is not None else None
    request = {
        "v": 1, "source": source, "function": function, "filename": filename,
        "inputs": json.loads(text),
        "evaluation_time": at.isoformat() if at else None, "seed": seed,
        "tz": tz,
        "validate": bool(validate), "python": python,
        "restricted": bool(validate if restricted is None else restricted), "uses": [list(u) for u in uses],
        "effects": effects, "connections": connections, "allow_urllib": bool(allow_urllib),
        "egress": None,
        "limits": {"cpu_seconds": int(limits.cpu_seconds),
                   "memory_bytes": int(limits.memory_bytes),
                   "output_bytes": int(limits.output_bytes),
                   "stdout_chars": int(limits.stdout_chars)},
        "trace": tconf,
        "faketime": None, "environ": None,  # the harness sets both before any step code
    }
    spec = faketime_spec(at)
    # Set by the harness before any step code (inside.py `_take_request`): the pinned clock
    # (libfaketime re-reads FAKETIME), the local zone (TZ) and the connections' variables,
    # which thus never appear on a command line and are the same for a fresh sandbox and a
    # spare.
    # A validated run loads the harness from the harness memfd and reads the request from
    # stdin (SPARE_BOOTSTRAP), whether the sandbox starts now or was started ahead
    # (spares.py): the same command line, bytes and order, so both run alike (memory
    # addresses included). Only the test-only unvalidated mode keeps the one-object BOOTSTRAP
    # (no validator shipped) and its connections' variables on bwrap's `--args` memfd (the
    # tests find its sandboxes by them).
    framed = bool(validate)
    request["faketime"] = spec
    if framed:
        request["environ"] = {env_name(a): v for a, v in connections.items()} or None
    cap = limits.output_bytes + (_trace.MAX_TRACE_BYTES + 64 if tconf is not None else 0)
    return Prepared(request, source, function, uses, limits, effects, tconf, red, t0, spec,
                    cap, framed, live_network, connections, egress_policy, interp, b)


def launch(p: Prepared) -> StepResult:
    """A prepared run in a fresh sandbox (a spare when one is waiting)."""
    from . import cmdline, process, seccomp, spares

    request, limits, interp, live_network = p.request, p.limits, p.interp, p.live_network
    framed, connections, b = p.framed, p.connections, p.bundle
    red, t0 = p.red, p.t0
    spare = spares.take(interp) if framed and not live_network else None
    if spare is not None:
        return p.conclude(process.drive(spare, frame(request), wall=limits.wall_seconds,
                                        output_cap=p.cap))
    fds: list[int] = []
    proxy = None
    try:
        if live_network:
            from . import egress  # (sockets and the proxy: a live run's alone)

            ident = cmdline.layout(interp).get("identity")
            proxy = egress.EgressProxy(ident.uid if ident else None,
                                       ident.gid if ident else None, policy=p.egress_policy)
            request["egress"] = egress.SANDBOX_PATH
        shared: tuple[int, ...] = ()  # passed on, never closed here (one per process)
        if framed:
            shared = (harness_fd(interp),)
            payload = frame(request)
        else:
            payload = marshal.dumps((b["main_code"], b["facades"], None, request,
                                     b["trace"] if p.tconf is not None else None))
        sfd = seccomp.memfd_with(seccomp.bpf(live_network), "stepsmith-seccomp")
        fds.append(sfd)
        afd = None
        if connections and not framed:
            argv = []
            for alias, secret in connections.items():
                argv += ["--setenv", env_name(alias), secret]
            afd = seccomp.memfd_with(("\0".join(argv) + "\0").encode("utf-8"),
                                     "stepsmith-args")
            fds.append(afd)
        cmd = cmdline.command(live_network=live_network, faketime_spec=p.spec,
                              seccomp_fd=sfd, args_fd=afd,
                              bootstrap=SPARE_BOOTSTRAP if framed else BOOTSTRAP,
                              egress_dir=proxy.directory if proxy else None,
                              bootstrap_args=tuple(str(fd) for fd in shared), interp=interp)
        outcome = process.supervise(cmd, payload, (*fds, *shared), wall=limits.wall_seconds,
                                    output_cap=p.cap, interp=interp)
    except (seccomp.SeccompUnavailable, OSError, ValueError) as exc:
        return finish(StepResult("unavailable", message=f"could not start the sandbox: {exc}"),
                       red, t0)
    finally:
        if proxy is not None:
            proxy.close()
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
    return p.conclude(outcome)
