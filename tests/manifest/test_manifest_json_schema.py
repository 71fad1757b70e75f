"""The checked-in JSON Schema is the model's output, and agrees with the model."""

import json
from pathlib import Path

import pytest
from manifest_kit import BASE
from stepsmith.runner.manifest import parse_manifest
from stepsmith.runner.schema import schema_text, workflow_json_schema

REPO = Path(__file__).resolve().parents[2]
CHECKED_IN = REPO / "schemas" / "workflow.schema.json"


def test_checked_in_schema_matches_the_model():
    assert CHECKED_IN.read_text(encoding="utf-8") == schema_text(), (
        "schemas/workflow.schema.json drifted from the model; regenerate it with "
        "`stepsmith schema --write schemas/workflow.schema.json`"
    )


def test_schema_header_and_descriptions_everywhere():
    schema = workflow_json_schema()
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert schema["title"]
    models = [schema] + list(schema["$defs"].values())
    for m in models:
        for name, prop in m.get("properties", {}).items():
            assert prop.get("description"), f"{m.get('title')}.{name} has no description"
        if m.get("properties"):
            assert m.get("additionalProperties") is False


def _yaml(text):
    import yaml

    return yaml.safe_load(text)


def test_jsonschema_accepts_a_valid_manifest():
    import jsonschema
    jsonschema.validate(_yaml(BASE), workflow_json_schema())


@pytest.mark.parametrize("old,new", [
    ("version: 3", "version: 0"),
    ("version: 3", 'version: "3"'),
    ('python: "3.11"', "python: 3.11"),
    ("workflow: invoice-matching", "workflow: Invoice"),
    ("    connections: [xero]\n", "    network: internet\n"),
    ("kind: create", "kind: creat"),
    ("  xero: {description: Ledger}", "  Xero: {description: Ledger}"),
    ("version: 3\n", "version: 3\nextra: 1\n"),
    ('  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}\n',
     '  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}\n  manual: {}\n'),
    ("explanation: Draft a bill for each clean match.", 'explanation: ""'),
    ("      tolerance:", "      tol-erance:"),
])
def test_jsonschema_and_model_agree_on_invalid_manifests(old, new):
    import jsonschema
    text = BASE.replace(old, new, 1)
    assert parse_manifest(text).workflow is None
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_yaml(text), workflow_json_schema())


def test_schema_is_valid_json_schema():
    import jsonschema
    schema = json.loads(CHECKED_IN.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)


def test_examples_validate_against_the_schema():
    import jsonschema
    from stepsmith.runner.workspace.discovery import find_manifests

    examples = sorted(find_manifests([REPO / "examples"]))
    # finding none must not pass: these are the examples the README and the demo run
    assert {m.parent.name for m in examples} >= {"invoice-matching", "payment-chasing"}, examples
    for m in examples:
        data = _yaml(m.read_text())
        jsonschema.validate(data, workflow_json_schema())
        doc = parse_manifest(m.read_text(), str(m))
        assert doc.workflow is not None and doc.problems == [], (m, doc.problems)
