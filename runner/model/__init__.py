"""One grammar and typed references for workflows (plain Python).

`grammar`: slugs, case names, manifest file names, reference prefixes (the allowed modules are
validator/policy.py's).
`refs`: `CodeRef`, `InputRef` (`SourceRef` | `StepOutputRef` | `Literal` | `MalformedRef`).
`export`: the grammar as JSON for the TypeScript client (`python -m stepsmith.runner.model.export`).
"""

from .grammar import (
    CASE_PATTERN,
    MANIFEST_GLOBS,
    MANIFEST_NAME,
    MANIFEST_SUFFIX,
    SLUG_PATTERN,
    SOURCE_PREFIX,
    STEP_PREFIX,
    STEP_SUFFIX,
    is_case_name,
    is_manifest_name,
    is_name,
    is_slug,
    is_step_id,
)
from .refs import (
    CodeRef,
    InputRef,
    Literal,
    MalformedRef,
    SourceRef,
    StepOutputRef,
    parse_input_ref,
    sources_read,
)

__all__ = [
    "CASE_PATTERN", "MANIFEST_GLOBS", "MANIFEST_NAME", "MANIFEST_SUFFIX", "SLUG_PATTERN",
    "SOURCE_PREFIX", "STEP_PREFIX", "STEP_SUFFIX", "CodeRef", "InputRef", "Literal",
    "MalformedRef", "SourceRef", "StepOutputRef", "is_case_name", "is_manifest_name",
    "is_name", "is_slug", "is_step_id", "parse_input_ref", "sources_read",
]
