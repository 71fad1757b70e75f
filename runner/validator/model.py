"""Inputs of the validator beyond the source text.

`StepUse` behaves as `@dataclass(frozen=True) class StepUse: step_id: str; function: str;
network: Literal["none", "public_egress"] = "none"` (constructor, repr, eq, hash, immutability,
`dataclasses` functions), written by hand: this module is imported inside every sandbox, where
`dataclasses` and `typing` would cost most of a step's start-up.
"""

from __future__ import annotations

from stepsmith.runner.problems import dataclass_compatible

_FIELDS = ("step_id", "function", "network")


class StepUse:
    """A step (manifest `id`) that runs function `function` of the file being validated."""

    __slots__ = _FIELDS
    __match_args__ = _FIELDS

    def __init__(self, step_id: str, function: str, network: str = "none") -> None:
        _set = object.__setattr__
        _set(self, "step_id", step_id)
        _set(self, "function", function)
        _set(self, "network", network)  # "none" | "public_egress"

    def _key(self) -> tuple:
        return (self.step_id, self.function, self.network)

    def __repr__(self) -> str:
        return (f"{type(self).__qualname__}(step_id={self.step_id!r}, "
                f"function={self.function!r}, network={self.network!r})")

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name, value):
        import dataclasses  # error path only

        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        import dataclasses  # error path only

        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self):
        return type(self), self._key()


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
