"""Cross references inside a manifest: each problem at the exact key or value."""

import pytest
from manifest_kit import BASE, at, pos
from stepsmith.runner.manifest import (
    find_forbidden_fields,
    is_forbidden_field,
    parse_manifest,
)

CASES = [
    # undeclared connection: step list item, source, effect, event trigger
    ("step-connection", "connections: [xero]", "connections: [xero, slack]", "SM101", "slack", 1, "connection 'slack'"),
    ("source-connection", "{connection: xero, description: Supplier", "{connection: xer, description: Supplier",
     "SM101", "xer,", 1, "did you mean 'xero'"),
    ("effect-connection", "draft_bill: {connection: xero", "draft_bill: {connection: mailer", "SM101", "mailer", 1,
     "effect 'draft_bill'"),
    ("event-connection", 'schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}',
     "event: {name: invoice.received, connection: hubspot}", "SM101", "hubspot", 1, "event trigger"),
    # undeclared source: the name part of the reference
    ("source", "invoices: sources.invoices", "invoices: sources.invoice", "SM102", "invoice\n", 1,
     "did you mean 'invoices'"),
    ("source-quoted", "invoices: sources.invoices", 'invoices: "sources.bank"', "SM102", 'bank"', 1,
     "source 'bank'"),
    ("source-malformed", "invoices: sources.invoices", "invoices: sources.in-voices", "SM102",
     "sources.in-voices", 1, "malformed source reference"),
    # undeclared effect
    ("effect", "effects: [draft_bill]", "effects: [draft_bil]", "SM103", "draft_bil]", 1, "did you mean 'draft_bill'"),
    # unknown step output: the id part
    ("step-output", "matches: steps.match.output", "matches: steps.matcher.output", "SM104", "matcher", 1,
     "no such step"),
    ("step-output-malformed", "matches: steps.match.output", "matches: steps.match.result", "SM104",
     "steps.match.result", 1, "steps.<id>.output"),
    # cycles: at an input on the cycle
    ("self-cycle", "matches: steps.match.output", "matches: steps.draft.output", "SM105", "steps.draft.output", 1,
     "uses its own output"),
    ("two-cycle", "      tolerance: \"0.50\"\n", "      tolerance: \"0.50\"\n      prior: steps.draft.output\n",
     "SM105", "steps.draft.output", 1, "match -> draft -> match"),
    # duplicate ids: at the second
    ("duplicate-id", "- id: draft", "- id: match", "SM106", "match\n    explanation: Draft", 1, "first used at line 14"),
    # reserved input names
    ("reserved-input", "      matches: steps.match.output\n",
     "      matches: steps.match.output\n      connections: [xero]\n", "SM108", "connections: [xero]\n", 1,
     "reserved"),
    # repeated entries
    ("repeated-connection", "connections: [xero]", "connections: [xero, xero]", "SM109", "xero]", 1, "listed twice"),
    # forbidden field names
    ("forbidden-param", "      tolerance: \"0.50\"\n", "      tolerance: \"0.50\"\n      api_key: sources.invoices\n",
     "SM301", "api_key", 1, "forbidden name"),
    ("forbidden-nested", "      tolerance: \"0.50\"\n",
     "      tolerance: \"0.50\"\n      options: {retry: 2, auth: {headers: [{Token: abc}]}}\n", "SM301", "Token", 1,
     "field named 'Token'"),
    ("forbidden-block-deep", "      tolerance: \"0.50\"\n",
     "      tolerance: \"0.50\"\n      options:\n        auth:\n          - x: 1\n            Credentials: abc\n",
     "SM301", "Credentials", 1, "'Credentials'"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_crossref_position(case):
    _id, old, new, code, needle, occurrence, fragment = case
    assert old in BASE
    text = BASE.replace(old, new, 1)
    doc = parse_manifest(text, "workflow.yaml")
    hits = [p for p in doc.problems if p.code == code]
    assert hits, f"expected {code}; got {[(p.code, p.message) for p in doc.problems]}"
    expected = pos(text, needle, occurrence)
    assert any(at(p) == expected for p in hits), [(at(p), p.message) for p in hits]
    p = next(p for p in hits if at(p) == expected)
    assert fragment in p.message
    assert p.rationale


def test_crossref_problems_carry_the_step_id():
    text = BASE.replace("effects: [draft_bill]", "effects: [nope]")
    (p,) = [p for p in parse_manifest(text).problems if p.code == "SM103"]
    assert p.step == "draft"


def test_reference_sub_span_covers_only_the_name():
    text = BASE.replace("matches: steps.match.output", "matches: steps.matcher.output")
    (p,) = parse_manifest(text).problems
    line, col = pos(text, "matcher")
    assert (p.span.line, p.span.column, p.span.end_column) == (line, col, col + len("matcher"))


def test_three_step_cycle_message_lists_the_cycle():
    text = BASE.replace("      tolerance: \"0.50\"\n", "      tolerance: \"0.50\"\n      back: steps.third.output\n")
    text += (
        "  - id: third\n"
        "    explanation: Third.\n"
        "    code: steps/t.py:third\n"
        "    inputs: {d: steps.draft.output}\n"
    )
    (p,) = [p for p in parse_manifest(text).problems if p.code == "SM105"]
    assert p.message == "wiring cycle: match -> third -> draft -> match"
    assert at(p) == pos(text, "steps.third.output")


def test_long_chain_is_not_a_cycle_and_deep_chains_do_not_recurse():
    from manifest_kit import big_manifest

    text = big_manifest(3000)
    doc = parse_manifest(text)
    assert doc.problems == []
    cyc = text.replace("prev: sources.invoices", "prev: steps.s2999.output")
    ps = [p for p in parse_manifest(cyc).problems if p.code == "SM105"]
    assert len(ps) == 1 and ps[0].message.startswith("wiring cycle: s0 -> s2999 -> s2998")


def test_crossrefs_run_even_when_the_schema_fails_elsewhere():
    text = BASE.replace("version: 3", "version: three").replace("effects: [draft_bill]", "effects: [nope]")
    codes = sorted(p.code for p in parse_manifest(text).problems)
    assert codes == ["SM005", "SM103"]


@pytest.mark.parametrize("name", ["secret", "SECRET", "Secrets", "credentials", "Credential", "api_key", "API_KEY",
                                  "apiKey", "api-key", "token", "Token", "TOKENS"])
def test_forbidden_names(name):
    assert is_forbidden_field(name)


@pytest.mark.parametrize("name", ["token_count", "access_token", "secretary", "keys", "api", "description", 3, None])
def test_allowed_names(name):
    assert not is_forbidden_field(name)


def test_find_forbidden_fields_any_depth():
    value = {
        "a": 1,
        "Secret": 2,
        "nested": [{"ok": 1}, {"deeper": {"API_KEY": "x", "list": [[{"token": 1}]]}}],
        "text": "token",  # values are not field names
    }
    assert find_forbidden_fields(value) == [
        ("Secret",),
        ("nested", 1, "deeper", "API_KEY"),
        ("nested", 1, "deeper", "list", 0, 0, "token"),
    ]


def test_find_forbidden_fields_very_deep_and_cyclic():
    deep = cur = {}
    for _ in range(50_000):
        cur["x"] = {}
        cur = cur["x"]
    cur["credentials"] = 1
    (path,) = find_forbidden_fields(deep)
    assert len(path) == 50_001 and path[-1] == "credentials"
    loop = {"a": []}
    loop["a"].append(loop)
    assert find_forbidden_fields(loop) == []
    assert find_forbidden_fields("token") == [] and find_forbidden_fields(None) == []


def test_did_you_mean_carries_a_replace_fix_for_editors():
    text = BASE.replace("invoices: sources.invoices", "invoices: sources.invoice").replace(
        "    code: steps/match.py:match\n", "    code: steps/match.py:match\n    netwrk: none\n")
    by_code = {p.code: p for p in parse_manifest(text).problems}
    from stepsmith.runner.fixes import apply_edits, fix_of

    for code, name in (("SM102", "invoices"), ("SM003", "network")):
        data = by_code[code].data
        assert (data["fix"], data["replacement"]) == ("replace", name)
        fix = fix_of(by_code[code])  # the edit itself, not only the name
        assert fix.title == f"Change to '{name}'"
        assert [(e.span, e.new_text) for e in fix.edits] == [(by_code[code].span, name)]
    fixed = apply_edits(text, fix_of(by_code["SM102"]).edits)
    assert apply_edits(fixed, fix_of(by_code["SM003"]).edits) == BASE.replace(
        "    code: steps/match.py:match\n", "    code: steps/match.py:match\n    network: none\n")
    # no close match: no fix
    text2 = BASE.replace("connections: [xero]", "connections: [zzzzzz]")
    (p,) = parse_manifest(text2).problems
    assert p.code == "SM101" and p.data == {}
