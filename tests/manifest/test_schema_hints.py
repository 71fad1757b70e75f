"""The schema's editor hints: every `defaultSnippets` body, filled with its placeholders'
defaults, is a valid value of its definition (model and schema alike); descriptions come with
`markdownDescription`; the three `default: null` that contradicted their types are gone."""

from __future__ import annotations

import re

import jsonschema
import pytest
from stepsmith.runner.manifest import model
from stepsmith.runner.schema import workflow_json_schema
from stepsmith.runner.schema_hints import SNIPPETS, WORKFLOW_SNIPPET

SCHEMA = workflow_json_schema()


def _fill(node):
    if isinstance(node, str):
        node = re.sub(r"\$\{\d+\|([^,|]*)[^}]*\}", r"\1", node)
        return re.sub(r"\$\{\d+:([^}]*)\}", r"\1", node)
    if isinstance(node, dict):
        return {_fill(k): _fill(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_fill(v) for v in node]
    return node


@pytest.mark.parametrize(("title", "snippet"), [(t, s) for t, ss in SNIPPETS.items() for s in ss])
def test_snippet_bodies_are_valid(title, snippet):
    body = _fill(snippet["body"])
    getattr(model, title).model_validate(body)
    sub = {"$defs": SCHEMA["$defs"], **SCHEMA["$defs"][title]}
    jsonschema.Draft202012Validator(sub).validate(body)
    assert SCHEMA["$defs"][title]["defaultSnippets"] == SNIPPETS[title]


def test_workflow_snippet_is_a_valid_manifest():
    body = _fill(WORKFLOW_SNIPPET["body"])
    model.Workflow.model_validate(body)
    jsonschema.Draft202012Validator(SCHEMA).validate(body)


def _nodes(node):
    if isinstance(node, dict):
        yield node
        for k, v in node.items():
            if k not in ("defaultSnippets", "enum", "examples"):
                yield from _nodes(v)
    elif isinstance(node, list):
        for v in node:
            yield from _nodes(v)


def test_every_description_has_a_markdown_one_and_no_default_contradicts_its_type():
    described = [n for n in _nodes(SCHEMA) if isinstance(n.get("description"), str)]
    assert described and all(n.get("markdownDescription") == n["description"] for n in described)
    for name, prop in [("Event.connection", SCHEMA["$defs"]["Event"]["properties"]["connection"]),
                       ("Trigger.schedule", SCHEMA["$defs"]["Trigger"]["properties"]["schedule"]),
                       ("Trigger.event", SCHEMA["$defs"]["Trigger"]["properties"]["event"])]:
        assert "default" not in prop, name
    for n in _nodes(SCHEMA):
        if n.get("default", 0) is None:
            assert {"type": "null"} in n.get("anyOf", []), n


def test_timezone_is_one_enum_and_cron_a_pattern():
    zone = SCHEMA["$defs"]["Timezone"]
    assert "Europe/London" in zone["enum"] and "localtime" not in zone["enum"]
    cron = SCHEMA["$defs"]["Schedule"]["properties"]["cron"]
    assert cron["pattern"].startswith("^") and cron["maxLength"] == 200


def test_problems_the_schema_expresses_are_marked_and_no_others():
    """`data.schema`: an editor may leave these to a JSON Schema tool (VS Code's YAML extension);
    everything else (YAML syntax, cross references, a number too long to read) stays ours."""
    from manifest_kit import BASE
    from stepsmith.runner.manifest import parse_manifest
    from stepsmith.server.convert import to_diagnostic

    text = (BASE.replace('"0 7 * * 1-5"', '"0 0 31 2 *"').replace("Europe/London", "Europe/Londn")
            .replace("Pair each invoice with its purchase order.", '""')
            .replace("{connection: xero, description: Supplier invoices}", "{connection: null}")
            .replace("steps.match.output", "steps.nope.output"))
    doc = parse_manifest(text)
    marked = {(p.code, p.data.get("schema", False)) for p in doc.problems}
    assert ("SM005", True) in marked and ("SM107", True) in marked and ("SM004", True) in marked
    assert ("SM104", False) in marked, marked  # a cross reference: ours alone
    assert all(p.data.get("schema") for p in doc.problems if p.code in ("SM004", "SM107"))
    timezone = next(p for p in doc.problems if "timezone" in p.message)
    lsp = to_diagnostic(timezone, text.split("\n"), "utf-16")
    assert lsp["data"]["schema"] is True and lsp["data"]["fix"]["edits"]  # did-you-mean kept
    big = parse_manifest(BASE.replace("version: 3", "version: " + "9" * 5000)).problems
    assert [p.data.get("schema") for p in big] == [None]
