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

import functools
import hashlib
import importlib
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..harness import HARNESS_VERSION, bundle
from ..problems import Problem, Span
from ..pythons import checker
from ..pythons.pins import mismatch as pin_mismatch
from ..pythons.probe import running
from ..validator_sources import validator_files
from .connections import load_connections
from .prepared import Prepared, launch, prepare
from .redact import Redactor, finish, redact
from .result import STATUSES, Limits, StepResult

if TYPE_CHECKING:
    from ..pythons.probe import Interpreter
    from . import egress, process  # noqa: F401 (typing of the lazy attributes)
    from .trace import TraceMode

# What only starting a sandbox needs (bwrap's command line, the supervisor, the egress proxy,
# seccomp, spares, traces) is imported when first used: `stepsmith check` and fixture loading
# import this package for its boundary types (fixtures/load.py), and a pre-commit hook must
# not pay for the rest (issue 20). Reached as attributes (`sandbox.process`) they still load.
_LAZY_MODULES = frozenset({"cmdline", "egress", "process", "seccomp", "spares", "trace",
                           "interpret", "identity", "launcher", "addresses", "interfaces"})
_FROM_TRACE = frozenset({"Coverage", "LineValue", "TraceMode", "ValueSnapshot"})


def __getattr__(name: str):
    if name in _LAZY_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _FROM_TRACE:
        return getattr(importlib.import_module(f"{__name__}.trace"), name)
    if name == "known_functions":
        return importlib.import_module(f"{__name__}.interpret").known_functions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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


# --------------------------------------------------------------------------- availability

_available: tuple[bool, str] | None = None
_probing = threading.Lock()


def sandbox_available() -> tuple[bool, str]:
    """(True, description) when bwrap, libfaketime and libseccomp work here; else (False,
    what to install). Probed once per process with a real sandbox run; a caller arriving
    while the probe runs (`stepsmith test` starts it ahead, app/cases.py) waits for its
    answer rather than probing again."""
    if _available is not None:
        return _available
    with _probing:
        if _available is not None:
            return _available
        return _probe()


def _probe() -> tuple[bool, str]:
    global _available
    from . import cmdline, seccomp

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
    return ".".join(str(n) for n in sys.version_info[:3])


def runtime_identity(interp=None) -> dict:
    """What produced a result: stored with it, and compared before a stored result is reused.
    `interp`: the pinned interpreter the sandbox runs (default: the running one); its
    `python_version` is that interpreter's release and build (sys.version on one line), so a
    result of another interpreter, even of the same release, is never reused."""
    interp = interp or running()
    h = hashlib.sha256(bundle(interp)["sha256"].encode())
    here = Path(__file__).resolve().parent
    for path in sorted(here.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    # the validator, which decided the step may run (the sandbox checks its code on its own)
    for name, path in validator_files(here.parent):
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return {"harness_version": f"{__version__}+h{HARNESS_VERSION}",
            "python_version": interp.identity,
            "harness_source_sha256": h.hexdigest()}


# --------------------------------------------------------------------------- public API


def run_step(source: str | bytes, function: str, inputs: Mapping[str, Any], *,
             filename: str = "step.py", evaluation_time: datetime | str | None = None,
             seed: int | None = None, connections: Mapping[str, str] | None = None,
             effects_declared: Any = (), uses: Sequence[Any] = (), python: str = "3.11",
             live_network: bool = False, limits: Limits = DEFAULT_LIMITS,
             timezone: str | None = None, trace: TraceMode | None = None,
             egress_policy: egress.AddressPolicy | None = None,
             interpreter: Interpreter | None = None) -> StepResult:
    """Validate, then run `function` from `source` in a fresh sandbox.

    `python`: the workflow's pin; `interpreter`: the interpreter it names (pythons.resolve;
    default: the running one). The code is validated with that interpreter's grammar and
    runs on it: its prefix bound read-only, its own compiled harness. A pin the interpreter
    is not (`3.12` on 3.11) is "unavailable" before anything runs.

    `trace` (default None: nothing is traced and nothing is sent for it): "coverage" fills
    `StepResult.coverage` (statement lines and arcs of the step file), "values" that and
    `StepResult.values` (per line the reprs of the names it bound and the value it returned,
    first and last execution), redacted and capped by the parent (sandbox/trace.py).

    `timezone`: IANA name of the sandbox's local time (default UTC): naive clock reads
    (`datetime.now()`, `date.today()`) and every naive local-time operation (`timestamp()`,
    `astimezone()`, `fromtimestamp()`, `fold`, `tzname()`) are in it, as zoneinfo gives them;
    aware reads convert the same instant as asked. Unknown, or no tz database: "unavailable".

    `uses`: the validator's StepUse list for this file (urllib only when every use is
    public_egress). `effects_declared`: names, (name, key) pairs, or a mapping name → key
    field (or → an object with `.key`). `connections`: alias → secret, already restricted to
    the step's declared connections (see `load_connections`). `live_network` shares the
    network only if this step's own use is public_egress; never retried here.
    `egress_policy`: what the live run's egress proxy lets through (default: the real
    `egress.AddressPolicy`; tests hand in one that admits a loopback canary).
    """
    prepared = prepare_step(source, function, inputs, filename=filename,
                            evaluation_time=evaluation_time, seed=seed,
                            connections=connections, effects_declared=effects_declared,
                            uses=uses, python=python, live_network=live_network,
                            limits=limits, timezone=timezone, trace=trace,
                            egress_policy=egress_policy, interpreter=interpreter)
    return prepared if isinstance(prepared, StepResult) else launch(prepared)


def prepare_step(source: str | bytes, function: str, inputs: Mapping[str, Any], *,
                 filename: str = "step.py", evaluation_time: datetime | str | None = None,
                 seed: int | None = None, connections: Mapping[str, str] | None = None,
                 effects_declared: Any = (), uses: Sequence[Any] = (), python: str = "3.11",
                 live_network: bool = False, limits: Limits = DEFAULT_LIMITS,
                 timezone: str | None = None, trace: TraceMode | None = None,
                 egress_policy: egress.AddressPolicy | None = None,
                 interpreter: Interpreter | None = None) -> StepResult | Prepared:
    """`run_step` up to the sandbox: validated and checked, the request built. A StepResult
    when it ends before any sandbox (refused, bad inputs, unavailable); else the Prepared
    run, which `run_step` starts in a fresh sandbox and `forks.run_forked` as one forked
    child of a shared one (the fixture-strength judge)."""
    t0 = time.monotonic()
    red = Redactor(connections)
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError:
            pass  # the validator reports SS004 on the bytes
    uses = list(uses)
    mismatch = pin_mismatch(python, interpreter)
    if mismatch is not None:
        return finish(StepResult("unavailable", message=mismatch), red, t0)
    try:
        try:
            problems = list(_refusals(source, python, tuple(uses), interpreter))
        except TypeError:  # a question that cannot be a key (unhashable uses): not kept
            problems = list(_refusals.__wrapped__(source, python, tuple(uses), interpreter))
    except Exception as exc:  # noqa: BLE001 - the contract says never; fail closed anyway
        problems = [Problem("SS003", f"validator failed: {type(exc).__name__}: {exc}"[:500],
                            Span(1, 0, 1, 1))]
    if problems:
        return finish(StepResult("refused", problems=problems,
                                  message=problems[0].message), red, t0)
    mine = [u for u in uses if getattr(u, "function", None) == function]
    allow_urllib = bool(uses) and all(getattr(u, "network", "none") == "public_egress"
                                      for u in uses)
    share_net = bool(live_network) and bool(mine) and all(
        u.network == "public_egress" for u in mine)
    return prepare(source, function, inputs, filename=filename,
                    evaluation_time=evaluation_time, seed=seed, connections=connections,
                    effects_declared=effects_declared, python=python,
                    uses=[(str(u.step_id), str(u.function), str(getattr(u, "network", "none")))
                          for u in uses],
                    allow_urllib=allow_urllib, live_network=share_net, validate=True,
                    limits=limits, _t0=t0, timezone=timezone, trace=trace,
                    egress_policy=egress_policy, interp=interpreter)


@functools.lru_cache(maxsize=256)
def _refusals(source: str, python: str, uses: tuple, interpreter) -> tuple:
    """The validator's errors for this question, kept: every fixture of a step (and every
    mutant run of the fixture-strength judge) validates the same text again before its
    sandbox. A failure is not kept (lru_cache keeps no exception)."""
    found = checker.validate(source, python=python, uses=uses, interpreter=interpreter)
    return tuple(p for p in found
                 if getattr(getattr(p, "severity", None), "value", "error") == "error")


def run_unvalidated(source: str, function: str, inputs: Mapping[str, Any], *,
                    evaluation_time: datetime | str | None = None, seed: int | None = None,
                    connections: Mapping[str, str] | None = None,
                    limits: Limits = DEFAULT_LIMITS,
                    trace: TraceMode | None = None, timezone: str | None = None) -> StepResult:
    """TEST ONLY. Run arbitrary Python in the sandbox WITHOUT the validator (parent or
    harness) and with the real builtins (`import os` works; only the six dialect modules are
    served as facades). It exists to show the sandbox contains hostile code on its own.
    Nothing in the CLI, the language server, fixtures or the store calls it; `run_step` has
    no parameter that reaches this mode.
    """
    return _execute(source, function, inputs, filename="step.py",
                    evaluation_time=evaluation_time, seed=seed, connections=connections,
                    validate=False, limits=limits, trace=trace, timezone=timezone)


# --------------------------------------------------------------------------- internals


def _execute(source: str, function: str, inputs: Mapping[str, Any], **kw: Any) -> StepResult:
    """prepare, then launch: the request, run in a fresh sandbox."""
    prepared = prepare(source, function, inputs, **kw)
    return prepared if isinstance(prepared, StepResult) else launch(prepared)
