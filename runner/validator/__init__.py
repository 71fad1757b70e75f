"""Step-dialect validator: reads step code without running it and refuses anything outside
the dialect (../shared/SPEC.md, "The step dialect"; codes in `stepsmith.runner.rules`).

Pure (no I/O), never raises, fails closed. One iterative pass over the AST; every rule is
local to one top-level statement (apart from the size cap), so a single function validated
with `line_offset` reports exactly what a whole-file validation reports inside it.

Layout: `engine` (decode, size cap, parse, drive), `walk` (iterative traversal + dispatch),
`positions` (byte -> code-point columns), `policy` (the allow/deny data), `checks/*` (rules).
"""

from stepsmith.runner.validator.engine import first_violation_per_step, validate
from stepsmith.runner.validator.model import StepUse
from stepsmith.runner.validator.policy import MAX_SOURCE_BYTES

__all__ = ["MAX_SOURCE_BYTES", "StepUse", "first_violation_per_step", "validate"]
