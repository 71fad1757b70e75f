"""The rules catalogue: stable codes in the documented ranges, one-line texts, and examples
that the validator really refuses / accepts."""

from __future__ import annotations

import re

import pytest
from stepsmith.runner import rules
from stepsmith.runner.rules import step_rules
from stepsmith.runner.validator import validate
from validator_helpers import EFFECTS, EGRESS

STEP_RULES = step_rules.RULES
CODE_RANGES = {"0": "meta", "1": "imports", "2": "private", "3": "introspection",
               "4": "constructs", "5": "determinism", "6": "effects"}


def test_all_rules_sorted_and_include_both_catalogues():
    every = rules.all_rules()
    codes = [r.code for r in every]
    assert codes == sorted(codes) and len(codes) == len(set(codes))
    from stepsmith.runner.rules import fixture_rules, manifest_rules  # an ImportError fails

    assert STEP_RULES and manifest_rules.RULES and fixture_rules.RULES
    assert {r.code for r in STEP_RULES} <= set(codes)
    assert {r.code for r in manifest_rules.RULES} <= set(codes)
    assert {r.code for r in fixture_rules.RULES} <= set(codes)


@pytest.mark.parametrize("rule", STEP_RULES, ids=[r.code for r in STEP_RULES])
def test_rule_shape(rule):
    assert re.fullmatch(r"SS[0-6]\d\d", rule.code) and rule.code[2] in CODE_RANGES
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name)
    for text in (rule.summary, rule.rationale):
        assert text and "\n" not in text and len(text) < 160
    assert rule.security is True
    assert rules.get(rule.code) is rule
    assert rules.get(rule.code.lower()) is rule
    assert rules.get(rule.name) is rule


@pytest.mark.parametrize("rule", [r for r in STEP_RULES if not r.code.startswith("SS0")]
                         + [step_rules.BY_CODE["SS001"]], ids=lambda r: r.code)
def test_catalogue_examples_are_refused_and_fixes_accepted(rule):
    example_uses = EFFECTS if rule.code.startswith("SS6") else ()
    refused = validate(rule.example, uses=example_uses)
    assert rule.code in [p.code for p in refused], [(p.code, p.message) for p in refused]
    fix_uses = EGRESS if rule.code == "SS105" else example_uses
    assert validate(rule.fix, uses=fix_uses) == []


def test_unknown_code_has_suggestions():
    with pytest.raises(rules.UnknownRule) as info:
        rules.get("SS2O1")
    assert "SS201" in info.value.suggestions
    assert isinstance(info.value, KeyError)
    assert "SS201" in rules.suggest("private-atribute")  # names are suggested too
    with pytest.raises(KeyError):
        rules.get("nope-nothing-like-it")


def test_problem_rationale_is_the_rules():
    (p,) = validate("import os\n")
    assert p.rationale == rules.get("SS101").rationale


def test_manifest_rules_are_the_catalogues_rule_type():
    """No stand-in Rule and no module __getattr__ (issue 21): the catalogue's own type, eagerly."""
    from stepsmith.runner import rules
    from stepsmith.runner.rules import manifest_rules

    assert not hasattr(manifest_rules, "__getattr__")
    assert all(type(r) is rules.Rule for r in manifest_rules.RULES)
    assert all(rules.get(r.code) is r for r in manifest_rules.RULES)
    assert rules.get("SM002").example == manifest_rules.EXAMPLES["SM002"][0]

