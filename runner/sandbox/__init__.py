"""Run one step in a fresh bubblewrap sandbox: `run_step`, and the test-only `run_unvalidated`.

Every invocation builds its own sandbox (process.py: bwrap + seccomp + rlimits + libfaketime)
and tears it down afterwards, whatever happened; there is no other way to execute step code,
and if bwrap is missing the result is status "unavailable" saying `apt-get install
bubblewrap`.

Trust model. The sandbox's output is untrusted: a step may escape the facades, `execve`
another program or write anything to any fd it holds. The parent therefore
- accepts exactly one JSON object on stdout, schema-checked; anything else is an error;
- computes status itself from bwrap's exit status and its own kills: wall_limit (it killed
  on the deadline), output_limit (it stopped reading), cpu_limit (SIGXCPU/SIGKILL in the
  sandbox with the CPU rlimit spent), error (crash, nonzero exit, no/garbled result);
  the sandbox's word is taken only for outcomes it alone can see (ok/error/refused/
  memory_limit/output_limit), and forging one of those gains nothing the step could not
  return anyway: the sandbox holds nothing but the step's own inputs and granted
  connections;
- measures duration itself;
- re-checks effect intents against the declaration (names, key field, key value);
- redacts every granted credential from output, error, traceback, stdout, effects, problem
  messages and its own messages ("[redacted:<alias>]").
The harness's result fd is a non-inheritable duplicate of stdout, and fds 1/2 point at
/dev/null before any step code runs, so a program exec'd by the step cannot reach the parent.

Decimal convention (ARCHITECTURE.md): exact numbers travel as strings ("1250.00"); the step
does Decimal(x); on the way out Decimal → str, date/datetime/time → ISO 8601, tuple → list;
any other non-JSON value is an error. Non-finite floats are an error.
"""

from __future__ import annotations

import json
import marshal
import math
import os
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from .. import __version__
from ..harness import BOOTSTRAP, HARNESS_VERSION, SPARE_BOOTSTRAP, bundle, frame, harness_fd
from . import cmdline, egress, process, seccomp, spares
from . import trace as _trace
from .connections import env_name, load_connections
from .redact import Redactor, redact
from .result import STATUSES, Limits, StepResult
from .trace import Coverage, LineValue, TraceMode, ValueSnapshot

__all__ = [
    "STATUSES",
    "Coverage",
    "Limits",
    "LineValue",
    "StepResult",
    "TraceMode",
    "ValueSnapshot",
    "interpreter_version",
    "load_connections",
    "redact",
    "run_step",
    "run_unvalidated",
    "runtime_identity",
    "sandbox_available",
]

DEFAULT_LIMITS = Limits()
_SIGXCPU = 24
_SIGKILL = 9
_SIGNAMES = {4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL",
             11: "SIGSEGV", 24: "SIGXCPU", 25: "SIGXFSZ", 31: "SIGSYS"}


# --------------------------------------------------------------------------- availability

_available: tuple[bool, str] | None = None


def sandbox_available() -> tuple[bool, str]:
    """(True, description) when bwrap, libfaketime and libseccomp work here; else (False,
    what to install). Probed once per process with a real sandbox run."""
    global _available
    if _available is not None:
        return _available
    try:
        lay = cmdline.layout()
        seccomp.bpf(False)
    except (cmdline.Unavailable, seccomp.SeccompUnavailable) as exc:
        return False, str(exc)
    res = _execute("def f():\n    return 1\n", "f", {}, filename="probe.py", python=None,
                   validate=False, limits=Limits())
    if res.status != "ok" or res.output != 1:
        _available = (False, (f"bubblewrap is installed at {lay['bwrap']} but a probe "
                              f"sandbox failed: {res.status}: {res.message}"))
    else:
        _available = (True, (f"bubblewrap at {lay['bwrap']}, Python {interpreter_version()} "
                             f"at {lay['exe']}"))
    return _available


def interpreter_version() -> str:
    import sys

    return ".".join(str(n) for n in sys.version_info[:3])


def runtime_identity() -> dict:
    """What produced a result: stored with it, and compared before a stored result is reused."""
    import hashlib
    from pathlib import Path

    h = hashlib.sha256(bundle()["sha256"].encode())
    here = Path(__file__).resolve().parent
    for path in sorted(here.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return {"harness_version": f"{__version__}+h{HARNESS_VERSION}",
            "python_version": interpreter_version(),
            "harness_source_sha256": h.hexdigest()}


# --------------------------------------------------------------------------- public API


def run_step(source: str | bytes, function: str, inputs: Mapping[str, Any], *,
             filename: str = "step.py", evaluation_time: datetime | str | None = None,
             seed: int | None = None, connections: Mapping[str, str] | None = None,
             effects_declared: Any = (), uses: Sequence[Any] = (), python: str = "3.11",
             live_network: bool = False, limits: Limits = DEFAULT_LIMITS,
             timezone: str | None = None, trace: TraceMode | None = None) -> StepResult:
    """Validate, then run `function` from `source` in a fresh sandbox.

    `trace` (default None: nothing is traced and nothing is sent for it): "coverage" fills
    `StepResult.coverage` (statement lines and arcs of the step file), "values" that and
    `StepResult.values` (per line the reprs of the names it bound and the value it returned,
    first and last execution), redacted and capped by the parent (sandbox/trace.py).

    `timezone`: IANA name the step's naive clock reads (`datetime.now()`, `date.today()`)
    are given in (default UTC); aware reads convert the same instant as asked.

    `uses`: the validator's StepUse list for this file (urllib only when every use is
    public_egress). `effects_declared`: names, (name, key) pairs, or a mapping name → key
    field (or → an object with `.key`). `connections`: alias → secret, already restricted to
    the step's declared connections (see `load_connections`). `live_network` shares the
    network only if this step's own use is public_egress; never retried here.
    """
    t0 = time.monotonic()
    red = Redactor(connections)
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError:
            pass  # the validator reports SS004 on the bytes
    try:
        from ..validator import validate
    except Exception as exc:  # noqa: BLE001 - fail closed, say why
        return _finish(StepResult("unavailable", message=f"validator not importable: {exc}"),
                       red, t0)
    uses = list(uses)
    try:
        problems = [p for p in validate(source, python=python, uses=uses)
                    if getattr(getattr(p, "severity", None), "value", "error") == "error"]
    except Exception as exc:  # noqa: BLE001 - the contract says never; fail closed anyway
        from ..problems import Problem, Span

        problems = [Problem("SS003", f"validator failed: {type(exc).__name__}: {exc}"[:500],
                            Span(1, 0, 1, 1))]
    if problems:
        return _finish(StepResult("refused", problems=problems,
                                  message=problems[0].message), red, t0)
    mine = [u for u in uses if getattr(u, "function", None) == function]
    allow_urllib = bool(uses) and all(getattr(u, "network", "none") == "public_egress"
                                      for u in uses)
    share_net = bool(live_network) and bool(mine) and all(
        u.network == "public_egress" for u in mine)
    return _execute(source, function, inputs, filename=filename,
                    evaluation_time=evaluation_time, seed=seed, connections=connections,
                    effects_declared=effects_declared, python=python,
                    uses=[(str(u.step_id), str(u.function), str(getattr(u, "network", "none")))
                          for u in uses],
                    allow_urllib=allow_urllib, live_network=share_net, validate=True,
                    limits=limits, _t0=t0, timezone=timezone, trace=trace)


def run_unvalidated(source: str, function: str, inputs: Mapping[str, Any], *,
                    evaluation_time: datetime | str | None = None, seed: int | None = None,
                    connections: Mapping[str, str] | None = None,
                    limits: Limits = DEFAULT_LIMITS,
                    trace: TraceMode | None = None) -> StepResult:
    """TEST ONLY. Run arbitrary Python in the sandbox WITHOUT the validator (parent or
    harness) and with the real builtins (`import os` works; only the six dialect modules are
    served as facades). It exists to show the sandbox contains hostile code on its own.
    Nothing in the CLI, the language server, fixtures or the store calls it; `run_step` has
    no parameter that reaches this mode.
    """
    return _execute(source, function, inputs, filename="step.py",
                    evaluation_time=evaluation_time, seed=seed, connections=connections,
                    validate=False, limits=limits, trace=trace)


# --------------------------------------------------------------------------- internals


def _jsonable(value: Any) -> Any:
    def default(o):
        if isinstance(o, Decimal):
            return str(o)
        if isinstance(o, (datetime, date)):
            return o.isoformat()
        if isinstance(o, tuple):
            return list(o)
        raise TypeError(f"input value of type {type(o).__name__} is not JSON-serialisable")

    return json.dumps(value, default=default, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":"))


def _eval_time(value) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if not isinstance(value, datetime):
        raise TypeError("evaluation_time must be a datetime or an ISO 8601 string")
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value


def _utc_offset(at: datetime | None, timezone: str | None) -> int:
    """The timezone's UTC offset at the evaluation instant (the sandbox has no tz database:
    the parent resolves daylight saving and passes a fixed offset)."""
    if at is None or not timezone or timezone == "UTC":
        return 0
    from zoneinfo import ZoneInfo

    off = at.astimezone(ZoneInfo(timezone)).utcoffset()
    return int(off.total_seconds()) if off is not None else 0


def _normalise_effects(declared: Any) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    if not declared:
        return out
    items: Iterable
    if isinstance(declared, Mapping):
        items = declared.items()
    else:
        items = [(d, None) if isinstance(d, str) else tuple(d) for d in declared]
    for name, key in items:
        if key is not None and not isinstance(key, str):
            key = getattr(key, "key", None)
        out[str(name)] = key
    return out


def _execute(source: str, function: str, inputs: Mapping[str, Any], *, filename: str,
             evaluation_time=None, seed: int | None = None,
             connections: Mapping[str, str] | None = None, effects_declared: Any = (),
             python: str = "3.11", uses: Sequence[tuple] = (), allow_urllib: bool = False,
             live_network: bool = False, validate: bool, restricted: bool | None = None,
             limits: Limits, _t0: float | None = None,
             timezone: str | None = None, trace: TraceMode | None = None) -> StepResult:
    """validate: the harness re-runs the validator before executing anything. restricted:
    restricted builtins + facade-only imports (defaults to `validate`; tests probe the
    layers separately). Only run_unvalidated passes validate=False."""
    t0 = time.monotonic() if _t0 is None else _t0
    connections = {str(k): str(v) for k, v in (connections or {}).items()}
    red = Redactor(connections)
    try:
        lay = cmdline.layout()
    except cmdline.Unavailable as exc:
        return _finish(StepResult("unavailable", message=str(exc)), red, t0)
    if python and str(python) != lay["version"]:
        return _finish(StepResult(
            "unavailable", message=f"the workflow pins python {python!r} but the sandbox "
            f"interpreter is Python {interpreter_version()} ({lay['exe']}); run stepsmith "
            f"under Python {python}"), red, t0)
    if not isinstance(source, str):
        return _finish(StepResult("refused", message="step source is not UTF-8 text"), red, t0)
    try:
        if not isinstance(inputs, Mapping):
            raise TypeError("inputs must be a mapping of parameter name to value")
        text = _jsonable(dict(inputs))
        at = _eval_time(evaluation_time)
    except (TypeError, ValueError) as exc:
        return _finish(StepResult("error", error={"type": type(exc).__name__,
                                                  "message": str(exc), "traceback": []},
                                  message=f"bad inputs: {exc}"), red, t0)
    size = len(text.encode("utf-8"))
    if size > limits.input_bytes:
        return _finish(StepResult("input_too_large", message=f"inputs are {size} bytes; the "
                                  f"limit is {limits.input_bytes}"), red, t0)
    if seed is not None and not isinstance(seed, int):
        return _finish(StepResult("error", message="seed must be an integer"), red, t0)
    bad = [a for a, v in connections.items() if "\0" in v or "\0" in a]
    if bad:
        return _finish(StepResult("unavailable", message=f"connection {bad[0]!r} holds a NUL "
                                  "character and cannot be passed as an environment variable"),
                       red, t0)
    effects = _normalise_effects(effects_declared)
    b = bundle()
    tconf = _trace.request(trace, source, filename) if trace is not None else None
    request = {
        "v": 1, "source": source, "function": function, "filename": filename,
        "inputs": json.loads(text),
        "evaluation_time": at.isoformat() if at else None, "seed": seed,
        "utc_offset_seconds": _utc_offset(at, timezone),
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
    pinned = at.astimezone(UTC) if at else datetime(1970, 1, 1, tzinfo=UTC)
    faketime_spec = pinned.strftime("%Y-%m-%d %H:%M:%S")
    # Both set by the harness before any step code (inside.py `_take_request`): the pinned
    # clock (libfaketime re-reads FAKETIME) and the connections' variables, which thus never
    # appear on a command line and are the same for a fresh sandbox and a spare.
    # A validated run loads the harness from the harness memfd and reads the request from
    # stdin (SPARE_BOOTSTRAP), whether the sandbox starts now or was started ahead
    # (spares.py): the same command line, bytes and order, so both run alike (memory
    # addresses included). Only the test-only unvalidated mode keeps the one-object BOOTSTRAP
    # (no validator shipped) and its connections' variables on bwrap's `--args` memfd (the
    # tests find its sandboxes by them).
    framed = bool(validate)
    request["faketime"] = faketime_spec
    if framed:
        request["environ"] = {env_name(a): v for a, v in connections.items()} or None
    cap = limits.output_bytes + (_trace.MAX_TRACE_BYTES + 64 if tconf is not None else 0)
    spare = spares.take() if framed and not live_network else None
    if spare is not None:
        outcome = process.drive(spare, frame(request), wall=limits.wall_seconds,
                                output_cap=cap)
        return _conclude(outcome, source, function, uses, limits, effects, tconf, red, t0)
    fds: list[int] = []
    proxy = None
    try:
        if live_network:
            ident = lay.get("identity")
            proxy = egress.EgressProxy(ident.uid if ident else None,
                                       ident.gid if ident else None)
            request["egress"] = egress.SANDBOX_PATH
        shared: tuple[int, ...] = ()  # passed on, never closed here (one per process)
        if framed:
            shared = (harness_fd(),)
            payload = frame(request)
        else:
            payload = marshal.dumps((b["main_code"], b["facades"], None, request,
                                     b["trace"] if tconf is not None else None))
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
        cmd = cmdline.command(live_network=live_network, faketime_spec=faketime_spec,
                              seccomp_fd=sfd, args_fd=afd,
                              bootstrap=SPARE_BOOTSTRAP if framed else BOOTSTRAP,
                              egress_dir=proxy.directory if proxy else None,
                              bootstrap_args=tuple(str(fd) for fd in shared))
        outcome = process.supervise(cmd, payload, (*fds, *shared), wall=limits.wall_seconds,
                                    output_cap=cap)
    except (seccomp.SeccompUnavailable, OSError, ValueError) as exc:
        return _finish(StepResult("unavailable", message=f"could not start the sandbox: {exc}"),
                       red, t0)
    finally:
        if proxy is not None:
            proxy.close()
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
    return _conclude(outcome, source, function, uses, limits, effects, tconf, red, t0)


def _conclude(outcome: process.Outcome, source: str, function: str, uses, limits: Limits,
              effects: dict, tconf, red: Redactor, t0: float) -> StepResult:
    known = _known_functions(source, function, uses)
    res, raw_trace = _interpret(outcome, limits, effects, known)
    res.exit_status = outcome.returncode
    if tconf is not None and raw_trace is not None:
        res.coverage, res.values = _trace.check(raw_trace, tconf, red)
    return _finish(res, red, t0, limits)


def _interpret(o: process.Outcome, limits: Limits, effects: dict,
               known: frozenset[str] = frozenset()) -> tuple[StepResult, Any]:
    """The StepResult, and the raw trace when the sandbox sent one (checked by the caller)."""
    box: list = []
    res = _interpret_result(o, limits, effects, known, box)
    return res, box[0] if box else None


def _interpret_result(o: process.Outcome, limits: Limits, effects: dict,
                      known: frozenset[str], box: list) -> StepResult:
    if o.wall_killed:
        return StepResult("wall_limit", message=f"the step ran longer than "
                          f"{limits.wall_seconds:g} s of wall-clock time and was killed")
    if o.output_killed:
        return StepResult("output_limit", message=f"the step's output exceeded "
                          f"{limits.output_bytes} bytes; the sandbox was killed")
    rc = o.returncode
    sig = rc - 128 if rc is not None and rc > 128 else (-rc if rc is not None and rc < 0 else 0)
    # RLIMIT_CPU soft == hard, so the kernel sends SIGKILL when the CPU time is spent (SIGXCPU
    # too, on kernels that send it first). A SIGKILL we did not send is that limit -- or the
    # step killing itself, which only mislabels its own failure.
    if sig in (_SIGXCPU, _SIGKILL):
        return StepResult("cpu_limit", message=f"the step used more than "
                          f"{limits.cpu_seconds} s of CPU time and was stopped")
    if sig:
        diag = _stderr_hint(o.stderr)
        if diag == "memory":
            return StepResult("memory_limit", message="the step ran out of memory "
                              f"({limits.memory_bytes // (1024 * 1024)} MiB address space)")
        return _protocol_error(f"the sandbox process died with signal "
                               f"{_SIGNAMES.get(sig, sig)}", o)
    if rc != 0:
        if _stderr_hint(o.stderr) == "memory":
            return StepResult("memory_limit", message="the step ran out of memory "
                              f"({limits.memory_bytes // (1024 * 1024)} MiB address space)")
        return _protocol_error(f"the sandbox exited with status {rc} without a result", o)
    try:
        obj = json.loads(o.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return _protocol_error("the sandbox's output is not exactly one JSON object", o)
    if isinstance(obj, dict) and "trace" in obj:  # advisory, checked on its own (trace.py)
        box.append(obj.pop("trace"))
    try:
        return _from_sandbox(obj, limits, effects, known)
    except _Bad as exc:
        return _protocol_error(f"malformed result from the sandbox: {exc}", o)


class _Bad(ValueError):
    pass


def _need(cond: bool, what: str) -> None:
    if not cond:
        raise _Bad(what)


def _from_sandbox(obj: Any, limits: Limits, effects: dict,
                  known: frozenset[str] = frozenset()) -> StepResult:
    _need(isinstance(obj, dict), "not an object")
    allowed = {"status", "output", "error", "problems", "effects", "stdout", "message"}
    _need(set(obj) <= allowed, f"unexpected fields {sorted(set(obj) - allowed)}")
    status = obj.get("status")
    _need(status in ("ok", "error", "refused", "memory_limit", "output_limit"),
          f"status {status!r} cannot come from the sandbox")
    stdout = obj.get("stdout", "")
    _need(isinstance(stdout, str), "stdout")
    message = obj.get("message", "")
    _need(isinstance(message, str), "message")
    # no truncation here: redaction comes first (`_finish`), then the cuts (`_cut`), so a
    # credential straddling a cut is never left half-visible (the whole document is already
    # bounded by the output cap)
    res = StepResult(status, stdout=stdout, message=message)
    if status == "ok":
        _need("output" in obj, "ok without output")
        res.output = obj["output"]
        res.effects = _check_effects(obj.get("effects", []), effects)
        if isinstance(res.effects, StepResult):
            bad = res.effects
            bad.stdout = res.stdout
            return bad
    elif status == "error":
        res.error = _check_error(obj.get("error"))
        res.message = res.message or f"{res.error['type']}: {res.error['message']}"
    elif status == "refused":
        probs = obj.get("problems")
        _need(isinstance(probs, list) and probs, "refused without problems")
        res.problems = [_problem(p, known) for p in probs]
        res.message = res.problems[0].message
    elif status == "memory_limit":
        res.message = ("the step ran out of memory "
                       f"({limits.memory_bytes // (1024 * 1024)} MiB address space)")
    elif status == "output_limit":
        res.message = f"the step's result exceeded {limits.output_bytes} bytes"
    return res


def _check_error(err: Any) -> dict:
    _need(isinstance(err, dict), "error")
    typ, msg, tb = err.get("type"), err.get("message"), err.get("traceback", [])
    _need(isinstance(typ, str) and isinstance(msg, str) and isinstance(tb, list), "error shape")
    frames = []
    for fr in tb[:200]:
        _need(isinstance(fr, dict), "frame")
        file, line, func, text = fr.get("file"), fr.get("line"), fr.get("function"), fr.get("text")
        _need(isinstance(file, str) and isinstance(line, int) and isinstance(func, str)
              and isinstance(text, str), "frame shape")
        frames.append({"file": file, "line": line, "function": func, "text": text})
    return {"type": typ, "message": msg, "traceback": frames}


def _check_effects(raw: Any, declared: dict) -> list | StepResult:
    _need(isinstance(raw, list), "effects")
    out = []
    for item in raw:
        _need(isinstance(item, dict) and set(item) == {"effect", "key", "payload"}, "effect")
        name, key, payload = item["effect"], item["key"], item["payload"]
        _need(isinstance(name, str) and isinstance(payload, dict), "effect shape")
        if name not in declared:
            return StepResult("error", error={"type": "EffectError", "message":
                              f"effect {name!r} is not declared for this step", "traceback": []},
                              message=f"effect {name!r} is not declared for this step")
        field = declared[name]
        if field is not None and (field not in payload or payload[field] != key):
            return StepResult("error", error={"type": "EffectError", "message":
                              f"effect {name!r} payload has no key field {field!r}",
                              "traceback": []},
                              message=f"effect {name!r} payload has no key field {field!r}")
        out.append({"effect": name, "key": key, "payload": payload})
    return out


_CODE = re.compile(r"SS\d{3}")
_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+(\w+)", re.M)


def _known_functions(source: str, function: str, uses: Sequence[tuple]) -> frozenset[str]:
    """Names a problem's `step` may carry: the file's top-level functions (as the parser
    normalises identifiers, NFKC), the function run, and the steps using the file."""
    import unicodedata

    names = {unicodedata.normalize("NFKC", n) for n in _DEF.findall(source)}
    return frozenset({function, *names, *(str(x) for u in uses for x in u[:2])})


def _problem(p: Any, known: frozenset[str]):
    """A validator finding reported by the sandbox: its code must be a step-rule code and its
    step one of the functions/steps this run knows (a forged result carried a credential in
    both); every string is redacted later with the rest."""
    from ..problems import Problem, Span

    _need(isinstance(p, dict), "problem")
    code, step = p.get("code"), p.get("step")
    _need(isinstance(code, str) and _CODE.fullmatch(code) is not None, "problem code")
    _need(step is None or (isinstance(step, str) and step in known), "problem step")
    _need(isinstance(p.get("message"), str), "problem message")
    try:
        span = Span(int(p["line"]), int(p["column"]), int(p["end_line"]), int(p["end_column"]))
        return Problem(code, p["message"], span, step=step)
    except (KeyError, TypeError, ValueError) as exc:
        raise _Bad(f"problem: {exc}") from None


def _stderr_hint(err: bytes) -> str | None:
    if b"MemoryError" in err or b"Cannot allocate memory" in err or b"out of memory" in err:
        return "memory"
    return None


def _protocol_error(msg: str, o: process.Outcome) -> StepResult:
    tail = o.stderr.decode("utf-8", "replace").strip().splitlines()[-5:]
    detail = (" — stderr: " + " | ".join(tail))[:1000] if tail else ""
    return StepResult("error", error={"type": "SandboxError", "message": msg, "traceback": []},
                      message=msg + detail)


def _finish(res: StepResult, red: Redactor, t0: float,
            limits: Limits = DEFAULT_LIMITS) -> StepResult:
    res.duration_ms = round((time.monotonic() - t0) * 1000, 3)
    try:
        _redact_result(res, red)
    except (RecursionError, ValueError):  # nesting too deep to walk: return nothing of it
        res.status, res.output, res.effects, res.stdout = "error", None, [], ""
        res.error = {"type": "SandboxError", "traceback": [],
                     "message": "the step's result is nested too deeply to check for credentials"}
        res.message = res.error["message"]
    _cut(res, limits)
    _need_status(res)
    return res


def _cut(res: StepResult, limits: Limits) -> None:
    """The display caps, applied only after redaction."""
    if len(res.stdout) > limits.stdout_chars + 64:
        res.stdout = res.stdout[: limits.stdout_chars] + "\n[stdout truncated]"
    res.message = res.message[:2000]
    if isinstance(res.error, dict):
        if isinstance(res.error.get("message"), str):
            res.error["message"] = res.error["message"][:10_000]
        if isinstance(res.error.get("type"), str):
            res.error["type"] = res.error["type"][:200]
    if res.problems:
        import dataclasses

        res.problems = [dataclasses.replace(p, message=p.message[:2000])
                        if dataclasses.is_dataclass(p) and len(p.message) > 2000 else p
                        for p in res.problems]


def _redact_result(res: StepResult, red: Redactor) -> None:
    if red:
        res.output = red.value(res.output)
        if res.error:
            res.error = red.value(res.error)
        res.effects = red.value(res.effects)
        res.stdout = red.text(res.stdout)
        res.message = red.text(res.message)
        if res.problems:
            import dataclasses

            res.problems = [dataclasses.replace(
                p, message=red.text(p.message), code=red.text(p.code),
                step=red.text(p.step) if isinstance(p.step, str) else p.step)
                if dataclasses.is_dataclass(p) else p for p in res.problems]


def _need_status(res: StepResult) -> None:
    if res.status not in STATUSES:  # pragma: no cover - programming error
        raise AssertionError(res.status)
    if isinstance(res.output, float) and not math.isfinite(res.output):  # pragma: no cover
        res.output = None
