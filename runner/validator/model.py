"""Inputs of the validator beyond the source text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class StepUse:
    """A step (manifest `id`) that runs function `function` of the file being validated."""

    step_id: str
    function: str
    network: Literal["none", "public_egress"] = "none"
