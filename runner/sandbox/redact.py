"""Credential redaction, applied by the parent to everything a sandbox returns.

Every occurrence of a granted secret (as a whole value or a substring; in dict keys and
values at any depth; in numbers too, by their decimal text) becomes "[redacted:<alias>]".
Longer secrets are replaced first so a secret containing another is not half-redacted.
A secret that was transformed (reversed, base64-encoded, split across values) cannot be
recognised; that is a documented limit, not something this function claims.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping
from typing import Any

from .result import STATUSES, Limits, StepResult


class Redactor:
    def __init__(self, connections: Mapping[str, str] | None):
        pairs = [(str(a), str(s)) for a, s in (connections or {}).items() if s]
        pairs.sort(key=lambda p: -len(p[1]))
        self.pairs = pairs

    def with_repr_forms(self) -> Redactor:
        """This redactor plus the forms each secret takes inside a Python repr (quotes,
        backslashes and non-printables escaped; with both quote kinds around, `'` too):
        for the value traces, which are reprs."""
        out = Redactor(None)
        pairs = list(self.pairs)
        for alias, secret in self.pairs:
            for form in (repr(secret)[1:-1], ascii(secret)[1:-1], repr("'\"" + secret)[4:-1]):
                if form and (alias, form) not in pairs:
                    pairs.append((alias, form))
        pairs.sort(key=lambda p: -len(p[1]))
        out.pairs = pairs
        return out

    def __bool__(self) -> bool:
        return bool(self.pairs)

    def text(self, s: str) -> str:
        for alias, secret in self.pairs:
            if secret in s:
                s = s.replace(secret, f"[redacted:{alias}]")
        return s

    def value(self, v: Any) -> Any:
        if not self.pairs:
            return v
        return self._value(v, 0)

    def _value(self, v: Any, depth: int) -> Any:
        if depth > 10_000:  # JSON from the sandbox is bounded by the output cap anyway
            raise ValueError("value too deeply nested to redact")
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, bool) or v is None:
            return v
        if isinstance(v, (int, float)):
            t = repr(v)
            r = self.text(t)
            return v if r == t else r
        if isinstance(v, dict):
            return {self._value(k, depth + 1) if isinstance(k, str) else k:
                    self._value(x, depth + 1) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [self._value(x, depth + 1) for x in v]
        return self.text(str(v))


def redact(value: Any, connections: Mapping[str, str] | None) -> Any:
    return Redactor(connections).value(value)


# --------------------------------------------------------------------------- a result's last step


def finish(res: StepResult, red: Redactor, t0: float,
            limits: Limits | None = None) -> StepResult:
    res.duration_ms = round((time.monotonic() - t0) * 1000, 3)
    try:
        _redact_result(res, red)
    except (RecursionError, ValueError):  # nesting too deep to walk: return nothing of it
        res.status, res.output, res.effects, res.stdout = "error", None, [], ""
        res.error = {"type": "SandboxError", "traceback": [],
                     "message": "the step's result is nested too deeply to check for credentials"}
        res.message = res.error["message"]
    _cut(res, limits if limits is not None else Limits())
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
            res.problems = [dataclasses.replace(
                p, message=red.text(p.message), code=red.text(p.code),
                step=red.text(p.step) if isinstance(p.step, str) else p.step)
                if dataclasses.is_dataclass(p) else p for p in res.problems]


def _need_status(res: StepResult) -> None:
    if res.status not in STATUSES:  # pragma: no cover - programming error
        raise AssertionError(res.status)
    if isinstance(res.output, float) and not math.isfinite(res.output):  # pragma: no cover
        res.output = None
