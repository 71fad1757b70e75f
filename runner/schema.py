"""JSON Schema of workflow.yaml, generated from the pydantic model (the single source of truth).

`schemas/workflow.schema.json` is this function's output, checked in; a test fails when they
drift. Regenerate with `stepsmith schema > schemas/workflow.schema.json` (or `--write`).
"""

from __future__ import annotations

import json

SCHEMA_ID = "https://stepsmith.dev/schemas/workflow.schema.json"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def workflow_json_schema() -> dict:
    from stepsmith.runner.manifest.model import Workflow

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
    _close_pattern_maps(schema)
    return schema


def _close_pattern_maps(node) -> None:
    """dict[Name, X] becomes patternProperties; close it so a key that misses the pattern is
    refused by any JSON Schema validator too, as the model refuses it."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            if "patternProperties" in n and "additionalProperties" not in n:
                n["additionalProperties"] = False
            stack.extend(n.values())
        elif isinstance(n, list):
            stack.extend(n)


def schema_text() -> str:
    """The exact text of schemas/workflow.schema.json (2-space indent, trailing newline)."""
    return json.dumps(workflow_json_schema(), indent=2, ensure_ascii=False) + "\n"
