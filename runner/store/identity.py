"""Runtime identity: which harness produced a result.

A stored result is reused only by a runtime with the same identity (harness version, the
sandbox's Python version, hash of the harness source). The sandbox package owns the
definition (``stepsmith.runner.sandbox.runtime_identity()``); this module only types it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class RuntimeIdentity:
    harness_version: str
    python_version: str
    harness_source_sha256: str

    def to_json(self) -> dict:
        return asdict(self)

    def differences(self, other: RuntimeIdentity) -> list[str]:
        out = []
        for key in ("harness_version", "python_version", "harness_source_sha256"):
            a, b = getattr(self, key), getattr(other, key)
            if a != b:
                out.append(f"{key}: stored {_short(a)}, this runtime {_short(b)}")
        return out


def _short(value) -> str:
    """A sha256 as its first 12 hex digits (as git abbreviates): a refusal names which
    identities differ without two 64-digit numbers to compare by eye."""
    text = str(value)
    if len(text) == 64 and all(c in "0123456789abcdef" for c in text):
        return text[:12] + "…"
    return text


_cached: RuntimeIdentity | None = None


def runtime_identity() -> RuntimeIdentity:
    """This runtime's identity: `sandbox.runtime_identity()` (the one definition), typed, once
    per process. A sandbox package that cannot say fails loudly: a result must never be stored
    or reused under an identity computed some other way."""
    global _cached
    if _cached is None:
        from stepsmith.runner.sandbox import runtime_identity as of_sandbox

        _cached = RuntimeIdentity(**of_sandbox())
    return _cached
