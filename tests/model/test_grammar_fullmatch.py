"""Python's `$` also matches before a trailing newline, so `re.match` with a
`^...$` grammar pattern accepted `name\n` (`record --name $'nl\n'` wrote
`fixtures/x/nl\n.json`). Every place a name is validated uses `fullmatch`; the patterns stay
as they are (pydantic's Rust regex and JavaScript read `$` as the end of the text)."""

import pytest
from stepsmith.runner.app.stored_runs import RUN_ID, check_run_id
from stepsmith.runner.model import grammar, refs
from stepsmith.runner.sandbox.connections import env_name

TAILS = ["\n", "\r\n", "\n\n", "\nx"]


@pytest.mark.parametrize("tail", TAILS)
def test_names_with_a_trailing_newline_are_not_names(tail):
    assert not grammar.is_slug("match" + tail)
    assert not grammar.is_step_id("match" + tail)
    assert not grammar.is_name("invoices" + tail)
    assert not grammar.is_case_name("acme-2026" + tail)
    assert grammar.is_slug("match") and grammar.is_name("invoices")
    assert grammar.is_case_name("acme-2026")


@pytest.mark.parametrize("tail", TAILS)
def test_references_with_a_trailing_newline_are_malformed(tail):
    assert isinstance(refs.parse_input_ref("sources.invoices" + tail), refs.MalformedRef)
    assert isinstance(refs.parse_input_ref("steps.match.output" + tail), refs.MalformedRef)
    ref = refs.CodeRef.parse("steps/x.py:f" + tail)
    assert ref is None or not ref.well_formed


@pytest.mark.parametrize("tail", TAILS)
def test_run_ids_and_aliases_with_a_trailing_newline_are_refused(tail):
    assert RUN_ID.fullmatch("day1") and not RUN_ID.fullmatch("day1" + tail)
    with pytest.raises(Exception, match="run id"):
        check_run_id("day1" + tail)
    with pytest.raises(ValueError):
        env_name("ledger" + tail)
    with pytest.raises(ValueError):
        env_name("ledger", workflow="demo" + tail)


def test_no_name_validation_uses_match_with_a_dollar_pattern():
    """A guard for the next pattern: every compiled grammar pattern refuses the newline."""
    for pattern in (grammar.SLUG_RE, grammar.NAME_RE, grammar.CASE_RE):
        assert pattern.match("a\n") is not None  # what `match` does with `$` ...
        assert pattern.fullmatch("a\n") is None  # ... and why fullmatch is used
