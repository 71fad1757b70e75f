"""SS601/SS602: `effects.emit(...)` checked against the effects the steps declare."""

from __future__ import annotations

import pytest
from stepsmith.runner.validator import StepUse, validate
from stepsmith.runner.validator.engine import validate_whole_file
from validator_helpers import src

DRAFT = StepUse("draft", "draft", "none", {"draft_bill": "invoice_id"})
NOTIFY = StepUse("notify", "notify", "none", {"send_note": "ref", "draft_bill": "invoice_id"})


def found(source, uses):
    return [(p.code, p.span.line, p.step) for p in validate(source, uses=uses)]


def test_stepuse_takes_a_mapping_and_stays_hashable():
    a = StepUse("s", "f", "none", {"b": "k", "a": None})
    assert a.effects == (("a", None), ("b", "k"))
    assert a == StepUse("s", "f", "none", [("b", "k"), ("a", None)])
    assert hash(a) == hash(StepUse("s", "f", "none", (("a", None), ("b", "k"))))
    assert a.declared_effects() == {"a": None, "b": "k"}
    assert StepUse("s", "f").effects is None and StepUse("s", "f").declared_effects() is None
    assert StepUse("s", "f", "none", {}) != StepUse("s", "f")


def test_undeclared_literal_name_is_refused_with_a_did_you_mean_edit():
    source = "def draft(m, effects):\n    effects.emit(\"draft_bil\", {'invoice_id': 1})\n"
    (p,) = validate(source, uses=[DRAFT])
    assert p.code == "SS601" and p.step == "draft"
    assert "step `draft` does not declare it" in p.message and "draft_bill" in p.message
    assert p.data["edits"] == [[2, 17, 2, 28, '"draft_bill"']]
    assert p.data["effect"] == "draft_bil" and p.data["steps"] == ["draft"]
    line, col, _end_line, end_col, text = p.data["edits"][0]
    lines = source.splitlines(keepends=True)
    lines[line - 1] = lines[line - 1][:col] + text + lines[line - 1][end_col:]
    assert validate("".join(lines), uses=[DRAFT]) == []  # the fix removes it and adds none


def test_no_close_name_no_edit():
    (p,) = validate("def draft(m, effects):\n    effects.emit('zzz', {})\n", uses=[DRAFT])
    assert p.code == "SS601" and "edits" not in p.data and "did you mean" not in p.message


def test_every_step_running_the_function_must_declare_it():
    uses = [DRAFT, StepUse("draft2", "draft", "none", {"send_note": "ref"})]
    source = "def draft(m, effects):\n    effects.emit('draft_bill', {'invoice_id': 1})\n"
    (p,) = validate(source, uses=uses)
    assert p.code == "SS601" and "`draft2`" in p.message and "`draft`," not in p.message


def test_helper_may_emit_what_any_step_of_the_file_declares():
    source = src("""
        def draft(m, effects):
            return note(m, effects)


        def note(m, effects):
            effects.emit('send_note', {'ref': 1})
            effects.emit('nobody_declares', {})
    """)
    assert found(source, [DRAFT, NOTIFY]) == [("SS601", 7, "note")]
    (p,) = validate(source, uses=[DRAFT, NOTIFY])
    assert "no step using this file" in p.message


def test_payload_key_field_and_shape():
    source = src("""
        def notify(m, effects):
            effects.emit('send_note', {'to': m})
            effects.emit(name='draft_bill', payload={'invoice_id': m})
            effects.emit('draft_bill', payload={'total': m})
            effects.emit('send_note', 'text')
            effects.emit('send_note', {'ref': 1, **m})
            effects.emit('send_note', {m: 1})
            effects.emit('send_note', m)
            effects.emit(*m)
    """)
    got = [(p.code, p.span.line, p.data.get("key")) for p in validate(source, uses=[NOTIFY])]
    assert got == [("SS602", 2, "ref"), ("SS602", 4, "invoice_id"), ("SS602", 5, None)]


@pytest.mark.parametrize("payload", ["{m}", "{'invoice_id', m}", "[m]", "(m,)", "{x for x in m}",
                                     "[x for x in m]", "f'{m}'", "'text'", "1"])
def test_a_payload_literal_that_is_not_a_dict_is_refused(payload):
    source = f"def draft(m, effects):\n    effects.emit('draft_bill', {payload})\n"
    (p,) = validate(source, uses=[DRAFT])
    assert (p.code, p.span.line, p.step) == ("SS602", 2, "draft"), payload
    assert "must be a dict" in p.message


def test_silent_without_declarations_or_without_the_effects_parameter():
    source = "def draft(m, effects):\n    effects.emit('zzz', [])\n"
    assert validate(source) == []
    assert validate(source, uses=[StepUse("draft", "draft")]) == []  # effects not known
    assert validate(source, uses=[DRAFT, StepUse("x", "draft")]) == []  # one use unknown
    other = "def draft(m, fx):\n    effects.emit('zzz', [])\n"
    assert validate(other, uses=[DRAFT]) == []  # `effects` is not the recorder here


def test_a_step_declaring_nothing_may_emit_nothing():
    source = "def draft(m, effects):\n    effects.emit('draft_bill', {'invoice_id': 1})\n"
    assert found(source, [StepUse("draft", "draft", "none", {})]) == [("SS601", 2, "draft")]


def test_nested_function_checks_against_its_top_level_step():
    source = src("""
        def draft(rows, effects):
            def one(r):
                effects.emit('draft_bil', {'invoice_id': r})
            return [one(r) for r in rows]
    """)
    assert found(source, [DRAFT]) == [("SS601", 3, "draft")]


def test_cache_is_keyed_by_the_declarations():
    source = "def draft(m, effects):\n    effects.emit('send_note', {'ref': 1})\n"
    assert found(source, [DRAFT]) == [("SS601", 2, "draft")]
    assert found(source, [StepUse("draft", "draft", "none", {"send_note": "ref"})]) == []
    assert found(source, [DRAFT]) == [("SS601", 2, "draft")]


@pytest.mark.parametrize("uses", [[DRAFT], [DRAFT, NOTIFY], []])
def test_local_to_one_statement(uses):
    """Per-function validation with a line offset == the whole file (the incremental rule)."""
    source = src("""
        import json


        def draft(m, effects):
            effects.emit('draft_bil', {'invoice_id': 1})
            effects.emit('draft_bill', {'x': json.dumps(m)})


        def notify(m, effects):
            effects.emit('send_note', {'x': 1})
    """)
    whole = validate_whole_file(source, uses=uses)
    assert validate(source, uses=uses) == whole
    lines = source.splitlines(keepends=True)
    parts = validate("".join(lines[:3]), uses=uses)
    parts += validate("".join(lines[3:8]), uses=uses, line_offset=3)
    parts += validate("".join(lines[8:]), uses=uses, line_offset=8)
    assert sorted(parts, key=lambda p: p.sort_key()) == whole
    if uses:
        assert [p.code for p in whole] == ["SS601", "SS602"] + (["SS602"] if len(uses) == 2
                                                                 else ["SS601"])
