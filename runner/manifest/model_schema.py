"""What the manifest model declares in the JSON Schema beyond what pydantic derives from its
types (runner/manifest/model.py uses these; runner/schema.py completes the `$defs`): a
source's kind-specific field, an effect's one target, and the rules of one manifest that the
positioned check reports with their exact position (crossref.py) and the schema states too.
Plain data: no pydantic here.
"""

from __future__ import annotations

from stepsmith.runner.model.grammar import (
    EFFECT_TARGETS,
    NAME_PATTERN,
    RESERVED_PARAMETERS,
    SOURCE_PREFIX,
    STEP_PREFIX,
    STEP_SUFFIX,
)

from .forbidden import forbidden_name_pattern

#: What each source kind needs: its own field, required, and no other kind's field.
SOURCE_KIND_FIELD = {"connection": "connection", "channel": "channel", "graph": "query"}


def source_kind_schema() -> dict:
    """Each kind needs its own field as text and holds no other kind's field (null, like
    absent, is allowed there), as `Source._fields_of_kind` says."""
    rules = []
    for kind, need in SOURCE_KIND_FIELD.items():
        others = [f for f in SOURCE_KIND_FIELD.values() if f != need]
        cond = ({"required": ["kind"], "properties": {"kind": {"const": kind}}}
                if kind != "connection" else  # the default: kind absent, or connection
                {"anyOf": [{"not": {"required": ["kind"]}},
                           {"properties": {"kind": {"const": "connection"}}}]})
        rules.append({"if": cond, "then": {
            "required": [need],
            "properties": {need: {"type": "string"}, **{o: {"type": "null"} for o in others}}}})
    return {"allOf": rules}


def effect_target_schema() -> dict:
    """Exactly one of `connection` / `channel` as text (null, like absent, for the other), as
    `Effect._one_target` says."""
    return {"anyOf": [{"required": [need], "properties": {
        need: {"type": "string"}, **{o: {"type": "null"} for o in EFFECT_TARGETS if o != need}}}
        for need in EFFECT_TARGETS]}


# Rules of one manifest that the positioned check (crossref.py) reports with their exact
# position, and that the schema expresses too, so any JSON Schema tool refuses the same
# manifests (tests/reference/test_schema_check_agreement.py). The model itself accepts them:
# a manifest with a repeated grant is still a workflow whose reach can be shown.
_FORBIDDEN_NAME = "a field named secret, credentials, api_key or token (any case, `-`/`_`/" \
    "spaces ignored) is not allowed in inputs: they are stored verbatim (SM301)"
_SOURCE_REF = "^" + SOURCE_PREFIX.replace(".", "\\.") + NAME_PATTERN[1:]
_STEP_REF = "^" + STEP_PREFIX.replace(".", "\\.") + "[^.]*" + STEP_SUFFIX.replace(".", "\\.") + "$"


def input_schemas() -> dict:
    """`$defs` of an input's value: a literal holds no forbidden field name at any depth
    (SM301); a text starting like a reference is one (SM102 / SM104 malformed)."""
    forbidden = {"not": {"pattern": forbidden_name_pattern()}, "errorMessage": _FORBIDDEN_NAME}
    literal = {"propertyNames": forbidden, "additionalProperties": {"$ref": "#/$defs/InputLiteral"},
               "items": {"$ref": "#/$defs/InputLiteral"}}

    def ref(prefix: str, full: str, what: str) -> dict:
        return {"if": {"type": "string", "pattern": "^" + prefix.replace(".", "\\.")},
                "then": {"pattern": full, "patternErrorMessage": f"malformed {what} reference: "
                         f"expected {what == 'source' and 'sources.<name>' or 'steps.<id>.output'}"}}

    return {"InputLiteral": literal, "InputValue": {"allOf": [
        {"$ref": "#/$defs/InputLiteral"}, ref(SOURCE_PREFIX, _SOURCE_REF, "source"),
        ref(STEP_PREFIX, _STEP_REF, "step")]}}


def inputs_schema(schema: dict) -> None:
    """Input names: not reserved (SM108), not forbidden (SM301); values: `InputValue`."""
    schema["propertyNames"] = {"allOf": [
        {"not": {"enum": list(RESERVED_PARAMETERS)}, "errorMessage": "`connections` and "
         "`effects` are reserved for the granted credentials and the effect recorder (SM108)"},
        {"not": {"pattern": forbidden_name_pattern()}, "errorMessage": _FORBIDDEN_NAME}]}
    for key in schema.get("patternProperties", {}):  # runner/schema.py makes it the $ref
        schema["patternProperties"][key] = {INPUT_VALUE_MARK: True}


#: An input's value in the schema: marked by the model, made a reference to
#: `$defs/InputValue` by runner/schema.py (pydantic resolves every `$ref` it is given).
INPUT_VALUE_MARK = "x-stepsmith-input-value"
ONCE = {"uniqueItems": True}  # SM109: each listed once
