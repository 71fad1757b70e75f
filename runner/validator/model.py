"""Inputs of the validator beyond the source text.

`StepUse` behaves as `@dataclass(frozen=True) class StepUse: step_id: str; function: str;
network: Literal["none", "public_egress"] = "none"; effects: tuple[tuple[str, str | None],
...] | None = None` (constructor, repr, eq, hash, immutability, `dataclasses` functions),
written by hand: this module is imported inside every sandbox, where `dataclasses` and
`typing` would cost most of a step's start-up.

`effects` are the step's declared effects as sorted (name, key field) pairs; the constructor
also takes a mapping {name: key field}. None means "not known" (the effect rules, SS6xx, stay
silent), which is what every caller that does not read the manifest passes.
"""

from __future__ import annotations

from stepsmith.runner.problems import FrozenRecord, dataclass_compatible

_FIELDS = ("step_id", "function", "network", "effects")


def _effect_pairs(effects) -> tuple | None:
    if effects is None:
        return None
    items = effects.items() if hasattr(effects, "items") else effects
    return tuple(sorted((str(name), None if key is None else str(key)) for name, key in items))


class StepUse(FrozenRecord):
    """A step (manifest `id`) that runs function `function` of the file being validated."""

    __slots__ = _FIELDS
    __match_args__ = _FIELDS

    def __init__(self, step_id: str, function: str, network: str = "none",
                 effects=None) -> None:
        _set = object.__setattr__
        _set(self, "step_id", step_id)
        _set(self, "function", function)
        _set(self, "network", network)  # "none" | "public_egress"
        _set(self, "effects", _effect_pairs(effects))  # ((name, key field), ...) | None

    def declared_effects(self) -> dict | None:
        """{effect name: key field} the step declares, or None when not known."""
        return None if self.effects is None else dict(self.effects)


def _declaration():
    from dataclasses import dataclass
    from typing import Literal

    @dataclass(frozen=True)
    class StepUse:
        step_id: str
        function: str
        network: Literal["none", "public_egress"] = "none"
        effects: tuple[tuple[str, str | None], ...] | None = None

    return StepUse


dataclass_compatible(StepUse, _declaration)
