"""The rule checks, one module per family. `DISPATCH` merges their `HANDLERS` maps into the
single node-type -> handlers table the walk uses (one pass over the tree for all rules)."""

from __future__ import annotations

from stepsmith.runner.validator.checks import (
    attributes,
    calls,
    constructs,
    determinism,
    effects,
    imports,
    modules,
    names,
    strings,
    versions,
)
from stepsmith.runner.validator.walk import build_dispatch

DISPATCH = build_dispatch([
    calls.HANDLERS,  # first: approves callees before the name/attribute handlers see them
    names.HANDLERS,
    attributes.HANDLERS,
    strings.HANDLERS,
    determinism.HANDLERS,
    imports.HANDLERS,
    modules.HANDLERS,
    constructs.HANDLERS,
    effects.HANDLERS,
    versions.HANDLERS,
])

check_top_level = constructs.check_top_level

__all__ = ["DISPATCH", "check_top_level"]
