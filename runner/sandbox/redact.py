"""Credential redaction, applied by the parent to everything a sandbox returns.

Every occurrence of a granted secret (as a whole value or a substring; in dict keys and
values at any depth; in numbers too, by their decimal text) becomes "[redacted:<alias>]".
Longer secrets are replaced first so a secret containing another is not half-redacted.
A secret that was transformed (reversed, base64-encoded, split across values) cannot be
recognised; that is a documented limit, not something this function claims.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


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
