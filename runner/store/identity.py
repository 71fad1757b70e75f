"""Runtime identity: which harness produced a result.

A stored result is reused only by a runtime with the same identity (harness version, the
sandbox's Python: the workflow's pinned interpreter, its release and build; hash of the harness
source). The sandbox package owns the
definition (``stepsmith.runner.sandbox.runtime_identity()``); this module only types it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from stepsmith.runner.sandbox import runtime_identity as of_sandbox


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


_cached: dict[str | None, RuntimeIdentity] = {}


def runtime_identity(interp=None) -> RuntimeIdentity:
    """The identity of the runtime that runs on `interp` (a pythons.Interpreter, the
    workflow's pinned one; default: the running interpreter): `sandbox.runtime_identity()`
    (the one definition), typed, once per process and interpreter. A sandbox package that
    cannot say fails loudly: a result must never be stored or reused under an identity
    computed some other way."""
    key = None if interp is None or interp.running else f"{interp.exe}\0{interp.build}"
    hit = _cached.get(key)
    if hit is None:
        hit = _cached[key] = RuntimeIdentity(**of_sandbox(interp))
    return hit
