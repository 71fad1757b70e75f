"""References mean the whole text, as the model's patterns do (pydantic's `$` is the end of the
text; Python's `re.match` with `$` would let a final newline through)."""

from stepsmith.runner.model.refs import (
    CodeRef,
    MalformedRef,
    SourceRef,
    StepOutputRef,
    parse_input_ref,
)


def test_a_trailing_newline_is_not_a_reference():
    assert parse_input_ref("sources.invoices") == SourceRef("invoices")
    assert parse_input_ref("steps.match.output") == StepOutputRef("match")
    assert isinstance(parse_input_ref("sources.invoices\n"), MalformedRef)
    assert isinstance(parse_input_ref("steps.match.output\n"), MalformedRef)
    ref = CodeRef.parse("steps/x.py:f\n")
    assert ref is None or not ref.well_formed
    assert CodeRef.parse("steps/x.py:f").well_formed
