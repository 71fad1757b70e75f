"""JSON Schema of workflow.yaml, generated from the pydantic model (the single source of truth).

`schemas/workflow.schema.json` is this function's output, checked in; a test fails when they
drift. Regenerate with `stepsmith schema > schemas/workflow.schema.json` (or `--write`).
Any JSON Schema tool must accept and refuse what the model does
(tests/reference/test_schema_model_agreement.py), so the generated schema is adjusted here:
patterns end where ECMAScript's and Python's `$` agree, `default: null` goes where null is not
allowed, the timezone enum is one definition; editors get snippets and markdown descriptions.
"""

from __future__ import annotations

import json

from stepsmith.runner.manifest.model import Workflow

# the model marks each step input's value with it: made the `$ref` to `$defs/InputValue` here
from stepsmith.runner.manifest.model_schema import INPUT_VALUE_MARK, input_schemas
from stepsmith.runner.manifest.zones import ZONES
from stepsmith.runner.schema_hints import SNIPPETS, WORKFLOW_SNIPPET

SCHEMA_ID = "https://stepsmith.dev/schemas/workflow.schema.json"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
#: The end of the text in ECMAScript and Python alike: Python's `$` (jsonschema uses
#: `re.search`) also matches before a final newline, which the model refuses.
END_OF_TEXT = r"(?![\s\S])"


def workflow_json_schema() -> dict:
    body = Workflow.model_json_schema(mode="validation")
    schema = {
        "$schema": SCHEMA_DIALECT,
        "$id": SCHEMA_ID,
        "title": "stepsmith workflow manifest (workflow.yaml)",
    }
    for k, v in body.items():
        if k == "title":
            continue
        schema[k] = v
    schema["$defs"]["Timezone"] = {
        "type": "string", "enum": list(ZONES),
        "description": "An IANA timezone name, e.g. Europe/London or UTC.",
        # editors (vscode-json-languageservice) say this instead of listing 600 names
        "errorMessage": "unknown timezone: use an IANA name such as Europe/London or UTC",
    }
    schema["$defs"].pop("JsonValue", None)  # inputs are InputValue (what may be stored)
    schema["$defs"].update(input_schemas())
    schema["defaultSnippets"] = [WORKFLOW_SNIPPET]
    for title, snippets in SNIPPETS.items():
        schema["$defs"][title]["defaultSnippets"] = snippets
    _walk(schema)
    return schema


def _allows_null(node: dict) -> bool:
    return node.get("type") == "null" or any(_allows_null(a) for a in node.get("anyOf", ()))


TIMEZONE_MARK = "x-stepsmith-timezone"  # runner/manifest/model.py marks timezone fields


def _walk(root) -> None:
    """Close pattern maps (a key that misses the pattern is refused, as the model refuses it),
    end every pattern at the end of the text, drop a `default: null` the type refuses, and give
    each description a `markdownDescription` (editors render the backticks)."""
    stack = [root]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            if n.pop(TIMEZONE_MARK, False):
                del n["type"]
                n["$ref"] = "#/$defs/Timezone"
            if n.pop(INPUT_VALUE_MARK, False):
                n["$ref"] = "#/$defs/InputValue"
            if "patternProperties" in n:
                n["patternProperties"] = {_anchor(k): v for k, v in n["patternProperties"].items()}
                n.setdefault("additionalProperties", False)
            if isinstance(n.get("pattern"), str):
                n["pattern"] = _anchor(n["pattern"])
            if "default" in n and n["default"] is None and not _allows_null(n):
                del n["default"]
            if isinstance(n.get("description"), str):
                n["markdownDescription"] = n["description"]
            stack.extend(v for k, v in n.items() if k not in ("defaultSnippets", "examples", "enum"))
        elif isinstance(n, list):
            stack.extend(n)


def _anchor(pattern: str) -> str:
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        return pattern[:-1] + END_OF_TEXT
    return pattern


def schema_text() -> str:
    """The exact text of schemas/workflow.schema.json (2-space indent, trailing newline)."""
    return json.dumps(workflow_json_schema(), indent=2, ensure_ascii=False) + "\n"
