"""One grammar and typed references for workflows (plain Python, cheap to import).

`grammar`: slugs, case names, manifest file names, reference prefixes, allowed modules.
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

# refs (dataclasses, ~15 ms) loads on first use, so `import stepsmith.runner.model.grammar`
# from the CLI or the pytest plugin costs only `re`
_REFS = frozenset({"CodeRef", "InputRef", "Literal", "MalformedRef", "SourceRef",
                   "StepOutputRef", "parse_input_ref", "sources_read"})


def __getattr__(name: str):
    if name in _REFS:
        from . import refs

        return getattr(refs, name)
    if name in ("ALLOWED_MODULES", "NETWORK_MODULES"):  # lazily: see grammar.__getattr__
        from . import grammar

        return getattr(grammar, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CASE_PATTERN", "MANIFEST_GLOBS", "MANIFEST_NAME", "MANIFEST_SUFFIX", "SLUG_PATTERN",
    "SOURCE_PREFIX", "STEP_PREFIX", "STEP_SUFFIX", "CodeRef", "InputRef", "Literal",
    "MalformedRef", "SourceRef", "StepOutputRef", "is_case_name", "is_manifest_name",
    "is_name", "is_slug", "is_step_id", "parse_input_ref", "sources_read",
]
