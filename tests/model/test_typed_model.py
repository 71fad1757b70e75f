"""The pydantic model carries the parsed references: `Step.code_ref`, `Step.input_refs`."""

from __future__ import annotations

import json

import yaml
from manifest_kit import BASE
from stepsmith.runner.app.workflow import build_inputs
from stepsmith.runner.fixtures.model import classify_input
from stepsmith.runner.manifest import Step, Workflow, parse_manifest
from stepsmith.runner.model import (
    CodeRef,
    Literal,
    MalformedRef,
    SourceRef,
    StepOutputRef,
)
from stepsmith.runner.reach import reach_rows


def test_steps_carry_typed_references():
    wf = parse_manifest(BASE).workflow
    match, draft = wf.steps
    assert match.code_ref == CodeRef("steps/match.py", "match")
    assert draft.code_ref == CodeRef("steps/bills.py", "draft")
    assert match.input_refs == {"invoices": SourceRef("invoices"),
                                "purchase_orders": SourceRef("purchase_orders"),
                                "tolerance": Literal("0.50")}
    assert draft.input_refs == {"matches": StepOutputRef("match")}


def test_round_trip_keeps_the_written_text_and_the_references():
    wf = parse_manifest(BASE).workflow
    dumped = wf.model_dump(mode="json", exclude_none=True)
    assert dumped["steps"][0]["code"] == "steps/match.py:match"  # text as written
    assert dumped["steps"][1]["inputs"] == {"matches": "steps.match.output"}
    again = Workflow.model_validate_json(json.dumps(dumped))
    assert again == wf
    assert [s.code_ref for s in again.steps] == [s.code_ref for s in wf.steps]
    assert [s.input_refs for s in again.steps] == [s.input_refs for s in wf.steps]
    # and from the YAML as loaded by another parser
    assert Workflow.model_validate(yaml.safe_load(BASE)) == wf


def test_step_alone_parses_its_references():
    step = Step.model_validate({"id": "s", "explanation": "x", "code": "a/b.py:run",
                                "inputs": {"x": "sources.", "y": 1}})
    assert step.code_ref == CodeRef("a/b.py", "run")
    assert step.input_refs == {"x": MalformedRef("sources.", "source"), "y": Literal(1)}


def test_no_extra_fields_in_the_schema_or_the_dump():
    assert set(Step.model_fields) == {"id", "explanation", "code", "inputs", "network",
                                      "connections", "effects"}
    assert "code_ref" not in parse_manifest(BASE).workflow.steps[0].model_dump()


def test_consumers_read_the_typed_references():
    wf = parse_manifest(BASE).workflow
    rows = reach_rows(wf)
    assert [(r.function, r.sources) for r in rows] == [
        ("match", ("invoices", "purchase_orders")), ("draft", ())]
    match, draft = wf.steps
    assert build_inputs(draft, {}, outputs={"match": [1]}) == {"matches": [1]}
    assert build_inputs(match, {}, sources={"invoices": [], "purchase_orders": []}) == {
        "invoices": [], "purchase_orders": [], "tolerance": "0.50"}
    assert classify_input(draft.input_refs["matches"]) == ("step", "match")
    assert classify_input("sources.x") == ("source", "x")
    assert classify_input("steps.a.output") == ("step", "a")
    assert classify_input(7) == ("literal", 7)


def test_a_malformed_reference_is_never_taken_for_a_literal():
    # before: classify_input("sources.Bad") was ('source', 'Bad') and "steps.x" a literal,
    # while the manifest check called both malformed
    assert classify_input("sources.Bad") == ("malformed", "sources.Bad")
    assert classify_input("steps.x") == ("malformed", "steps.x")
    text = BASE.replace('tolerance: "0.50"', "tolerance: steps.match")
    doc = parse_manifest(text)
    assert any(p.code == "SM104" for p in doc.problems)
    step = doc.workflow.steps[0]
    import pytest
    from stepsmith.runner.errors import InvokeError

    with pytest.raises(InvokeError, match=r"no value for tolerance \(from steps.match\)"):
        build_inputs(step, {}, sources={"invoices": [], "purchase_orders": []})
