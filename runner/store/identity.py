"""Runtime identity: which harness produced a result.

A stored result is reused only by a runtime with the same identity (harness version, the
sandbox's Python version, hash of the harness source). The sandbox package owns the
definition (``stepsmith.runner.sandbox.runtime_identity()``); when it does not provide one,
we compute it here from the source of ``runner/harness`` and ``runner/sandbox``.
"""

from __future__ import annotations

import hashlib
import platform
from dataclasses import asdict, dataclass
from pathlib import Path


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


def _from_mapping(value) -> RuntimeIdentity | None:
    if isinstance(value, RuntimeIdentity):
        return value
    get = value.get if isinstance(value, dict) else (lambda k, d=None: getattr(value, k, d))
    version = get("harness_version") or get("version")
    python = get("python_version") or get("python")
    source = (get("harness_source_sha256") or get("harness_source_hash") or get("source_sha256")
              or get("source_hash") or get("harness_hash"))
    if version and python and source:
        return RuntimeIdentity(str(version), str(python), str(source))
    return None


def _source_hash() -> str:
    root = Path(__file__).resolve().parent.parent  # runner/
    digest = hashlib.sha256()
    for folder in ("harness", "sandbox"):
        for path in sorted((root / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


_cached: RuntimeIdentity | None = None


def runtime_identity() -> RuntimeIdentity:
    global _cached
    if _cached is not None:
        return _cached
    try:
        from stepsmith.runner import sandbox

        provider = getattr(sandbox, "runtime_identity", None)
    except ImportError:
        provider = None
    ident = None
    if provider is not None:
        ident = _from_mapping(provider())
    if ident is None:
        from stepsmith.runner import __version__

        ident = RuntimeIdentity(__version__, platform.python_version(), _source_hash())
    _cached = ident
    return ident
