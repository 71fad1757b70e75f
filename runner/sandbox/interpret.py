"""What came out of a sandbox, read by the parent (which trusts none of it): status from
bwrap's exit status and the parent's own kills, exactly one schema-checked JSON object from
the harness, effects re-checked against the declaration, problem codes and steps checked
against what this run knows. Redaction and the display cuts come after (redact.finish)."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from ..problems import Problem, Span
from . import process
from . import trace as _trace
from .boundary import problem, visible
from .redact import finish
from .result import Limits, StepResult

_SIGXCPU = 24
_SIGKILL = 9
_SIGNAMES = {4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL",
             11: "SIGSEGV", 24: "SIGXCPU", 25: "SIGXFSZ", 31: "SIGSYS"}


def interpret(o: process.Outcome, limits: Limits, effects: dict,
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
        return protocol_error(f"the sandbox process died with signal "
                               f"{_SIGNAMES.get(sig, sig)}", o)
    if rc != 0:
        if _stderr_hint(o.stderr) == "memory":
            return StepResult("memory_limit", message="the step ran out of memory "
                              f"({limits.memory_bytes // (1024 * 1024)} MiB address space)")
        return protocol_error(f"the sandbox exited with status {rc} without a result", o)
    try:  # NaN/Infinity are not JSON, whatever Python's json accepts by default
        obj = json.loads(o.stdout.decode("utf-8"), parse_constant=_not_json)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return protocol_error("the sandbox's output is not exactly one JSON object", o)
    if isinstance(obj, dict) and "trace" in obj:  # advisory, checked on its own (trace.py)
        box.append(obj.pop("trace"))
    try:
        return _from_sandbox(obj, limits, effects, known)
    except _Bad as exc:
        return protocol_error(f"malformed result from the sandbox: {exc}", o)


class _Bad(ValueError):
    pass


def _not_json(token: str):
    raise ValueError(f"{token} is not JSON")


def _refused(why: str) -> StepResult:
    """A result (or effect payload) the boundary refuses: the harness says so itself; this
    holds for a sandbox that does not (boundary.py)."""
    return StepResult("error", error={"type": "NotJSONError", "message": why, "traceback": []},
                      message=f"NotJSONError: {why}")


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
    stdout, message = visible(stdout), visible(message)  # display text stays Unicode
    # no truncation here: redaction comes first (`_finish`), then the cuts (`_cut`), so a
    # credential straddling a cut is never left half-visible (the whole document is already
    # bounded by the output cap)
    res = StepResult(status, stdout=stdout, message=message)
    if status == "ok":
        _need("output" in obj, "ok without output")
        why = problem(obj["output"], "result", conversions=False)
        if why is not None:
            bad = _refused(why)
            bad.stdout = res.stdout
            return bad
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
        frames.append({"file": visible(file), "line": line, "function": visible(func),
                       "text": visible(text)})
    return {"type": visible(typ), "message": visible(msg), "traceback": frames}


def _check_effects(raw: Any, declared: dict) -> list | StepResult:
    _need(isinstance(raw, list), "effects")
    out = []
    for item in raw:
        _need(isinstance(item, dict) and set(item) == {"effect", "key", "payload"}, "effect")
        name, key, payload = item["effect"], item["key"], item["payload"]
        _need(isinstance(name, str) and isinstance(payload, dict), "effect shape")
        label = f"effect {visible(repr(name))}"
        why = (problem(payload, f"{label} payload", conversions=False)
               or problem(key, f"{label} key", conversions=False))
        if why is not None:
            return _refused(why)
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


def known_functions(source: str, function: str, uses: Sequence[tuple]) -> frozenset[str]:
    """Names a problem's `step` may carry: the file's top-level functions (as the parser
    normalises identifiers, NFKC), the function run, and the steps using the file."""
    names = {unicodedata.normalize("NFKC", n) for n in _DEF.findall(source)}
    return frozenset({function, *names, *(str(x) for u in uses for x in u[:2])})


def _problem(p: Any, known: frozenset[str]):
    """A validator finding reported by the sandbox: its code must be a step-rule code and its
    step one of the functions/steps this run knows (a forged result carried a credential in
    both); every string is redacted later with the rest."""
    _need(isinstance(p, dict), "problem")
    code, step = p.get("code"), p.get("step")
    _need(isinstance(code, str) and _CODE.fullmatch(code) is not None, "problem code")
    _need(step is None or (isinstance(step, str) and step in known), "problem step")
    _need(isinstance(p.get("message"), str), "problem message")
    try:
        span = Span(int(p["line"]), int(p["column"]), int(p["end_line"]), int(p["end_column"]))
        return Problem(code, visible(p["message"]), span, step=step)
    except (KeyError, TypeError, ValueError) as exc:
        raise _Bad(f"problem: {exc}") from None


def _stderr_hint(err: bytes) -> str | None:
    if b"MemoryError" in err or b"Cannot allocate memory" in err or b"out of memory" in err:
        return "memory"
    return None


def protocol_error(msg: str, o: process.Outcome) -> StepResult:
    tail = o.stderr.decode("utf-8", "replace").strip().splitlines()[-5:]
    detail = (" — stderr: " + " | ".join(tail))[:1000] if tail else ""
    return StepResult("error", error={"type": "SandboxError", "message": msg, "traceback": []},
                      message=msg + detail)


def conclude(outcome: process.Outcome, source: str, function: str, uses, limits: Limits,
             effects: dict, tconf, red, t0: float) -> StepResult:
    """The StepResult of a finished sandbox: its output interpreted and checked, its trace
    checked and redacted, timed and redacted as a whole (redact.finish)."""
    known = known_functions(source, function, uses)
    res, raw_trace = interpret(outcome, limits, effects, known)
    res.exit_status = outcome.returncode
    if tconf is not None and raw_trace is not None:
        res.coverage, res.values = _trace.check(raw_trace, tconf, red)
    return finish(res, red, t0, limits)
