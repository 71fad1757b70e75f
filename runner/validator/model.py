"""Inputs of the validator beyond the source text.

`StepUse` behaves as `@dataclass(frozen=True) class StepUse: step_id: str; function: str;
network: Literal["none", "public_egress"] = "none"` (constructor, repr, eq, hash, immutability,
`dataclasses` functions), written by hand: this module is imported inside every sandbox, where
`dataclasses` and `typing` would cost most of a step's start-up.
"""

from __future__ import annotations

from stepsmith.runner.problems import FrozenRecord, dataclass_compatible

_FIELDS = ("step_id", "function", "network")


class StepUse(FrozenRecord):
    """A step (manifest `id`) that runs function `function` of the file being validated."""

    __slots__ = _FIELDS
    __match_args__ = _FIELDS

    def __init__(self, step_id: str, function: str, network: str = "none") -> None:
        _set = object.__setattr__
        _set(self, "step_id", step_id)
        _set(self, "function", function)
        _set(self, "network", network)  # "none" | "public_egress"


def _declaration():
    from dataclasses import dataclass
    from typing import Literal

    @dataclass(frozen=True)
    class StepUse:
        step_id: str
        function: str
        network: Literal["none", "public_egress"] = "none"

    return StepUse


dataclass_compatible(StepUse, _declaration)
