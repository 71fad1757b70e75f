"""The public API of the allowed modules as the step dialect allows it: completion data for
`decimal.|`, `datetime.datetime.|` and `from statistics import |`.

Derived, not listed by hand: a module's names are what its sandbox facade exposes
(`harness.facades.public_members`: `__all__` or the public non-module names), the modules are
`validator.policy.ALLOWED_MODULES`, and every name the validator refuses as an attribute
(`attribute_refusal`: underscores, frame internals, `mro`, module-leak names) is left out, so
completion never offers what `check` would then refuse. Classes list their public attributes
the same way. Pure and cached: the modules are the runner's own CPython's.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from dataclasses import dataclass
from typing import Literal

from stepsmith.runner.harness.facades import public_members
from stepsmith.runner.language import signatures
from stepsmith.runner.validator import policy
from stepsmith.runner.validator.checks.attributes import attribute_refusal

__all__ = ["CALL_ONLY", "Member", "importable_names", "members", "modules", "resolve"]

Kind = Literal["module", "class", "function", "constant"]

#: Methods the dialect accepts only in a call of a given shape (SS501 `samples(n, seed=...)`;
#: SS206 `.format` on a literal): offered, and the completion inserts the call shape.
CALL_ONLY = {name: "SS501" for name in policy.SAMPLING_METHODS}
CALL_ONLY.update({name: "SS206" for name in policy.FORMAT_METHODS})

_PLAIN = (int, float, complex, str, bool, bytes, type(None))


@dataclass(frozen=True)
class Member:
    name: str
    kind: Kind
    doc: str  # first line of the docstring ("" for plain constants)
    signature: str  # `name(params)` for callables, the value for plain constants, else ""


def modules() -> list[str]:
    """The modules a step may import (validator policy), sorted."""
    return sorted(policy.ALLOWED_MODULES)


def _allowed(name: str) -> bool:
    return not name.startswith("_") and attribute_refusal(name) is None


@functools.lru_cache(maxsize=64)
def _namespace(dotted: str) -> tuple[tuple[str, object], ...] | None:
    """Sorted (name, object) pairs reachable as `dotted.<name>` in a step, or None."""
    obj = resolve(dotted)
    if obj is None:
        return None
    names = _namespace_of(obj)
    return () if names is None else tuple(sorted(names.items()))


def resolve(dotted: str):
    """The object `dotted` names in a step (`decimal.Decimal.quantize`), or None when it is not
    an allowed module or a name reachable from one through allowed members only."""
    if not isinstance(dotted, str) or len(dotted) > 200:
        return None
    parts = dotted.strip().split(".")
    if parts[0] not in policy.ALLOWED_MODULES:
        return None
    obj = importlib.import_module(parts[0])
    for part in parts[1:]:
        names = _namespace_of(obj)
        if names is None or part not in names:
            return None
        obj = names[part]
    return obj


def _namespace_of(obj) -> dict | None:
    """{name: object} of a module (its facade's names) or class; None for anything else
    (functions and values: their attributes are not offered)."""
    if inspect.ismodule(obj):
        return {n: v for n, v in public_members(obj).items() if _allowed(n)}
    if inspect.isclass(obj):
        out = {}
        for n in dir(obj):
            if _allowed(n):
                try:
                    v = getattr(obj, n)
                except AttributeError:
                    continue
                if not inspect.ismodule(v):
                    out[n] = v
        return out
    return None


def _kind(obj) -> Kind:
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if inspect.isroutine(obj) or callable(obj):
        return "function"
    return "constant"


def _first_line(obj) -> str:
    try:
        doc = inspect.getdoc(obj) or ""
    except Exception:  # noqa: BLE001 -- a missing doc is fine
        return ""
    return doc.strip().splitlines()[0].strip() if doc.strip() else ""


def _describe(dotted: str, name: str, obj) -> Member:
    kind = _kind(obj)
    if kind in ("function", "class"):
        sig = signatures.signature_of(f"{dotted}.{name}")
        return Member(name, kind, _first_line(obj), sig.label if sig is not None else "")
    if isinstance(obj, _PLAIN):
        return Member(name, kind, "", repr(obj)[:80])
    # descriptors (`datetime.date.year`) document themselves; other values are their type's
    is_descriptor = hasattr(type(obj), "__get__")
    return Member(name, kind, _first_line(obj) if is_descriptor else "", "")


@functools.lru_cache(maxsize=64)
def _members(dotted: str) -> tuple[Member, ...]:
    names = _namespace(dotted)
    if names is None:
        return ()
    return tuple(_describe(dotted, n, v) for n, v in names)


def members(dotted: str) -> list[Member]:
    """What completion offers after `dotted.` in a step file (`decimal`, `datetime.datetime`,
    `statistics.NormalDist`...), sorted by name; [] for anything else."""
    if not isinstance(dotted, str):
        return []
    return list(_members(dotted.strip()))


def importable_names(module: str) -> list[str]:
    """Names for `from module import |`: the module's members (never a submodule: SS102)."""
    if module not in policy.ALLOWED_MODULES:
        return []
    return [m.name for m in members(module)]
