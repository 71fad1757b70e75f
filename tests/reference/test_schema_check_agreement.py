"""`check` and the JSON Schema agree on every rule of one manifest the schema can express,
on generated manifests aimed at those rules: input names reserved (SM108) or forbidden at any
depth in any case (SM301), a grant or effect listed twice (SM109), a malformed `sources.` /
`steps.` reference (SM102 / SM104), an effect's target (exactly one of `connection` /
`channel`), beside what the model already says.

Reference: `jsonschema`'s Draft 2020-12 validator on the checked-in schema. `check`'s verdict:
`parse_manifest` on the manifest's text, refused when any problem is one the schema expresses
(`data["schema"]`: found through the model, or by the positioned check for a rule the schema
states too). The rules the schema cannot express (names declared elsewhere in the file, unique
step ids, wiring cycles, anything about step files or git) are listed in docs/guide.md.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stepsmith.runner.manifest import parse_manifest

REPO = Path(__file__).resolve().parents[2]
VALIDATOR = jsonschema.Draft202012Validator(
    json.loads((REPO / "schemas" / "workflow.schema.json").read_text("utf-8")))

WORDS = ["secret", "credential", "apikey", "api_key", "token"]
NEAR = ["token_count", "access_token", "tokenizer", "secretary", "keys", "apikeyring", "to",
        "credentials2", "Secret_Santa", "tok\ten"]
PLAIN = ["invoices", "rate", "limit", "Currency", "_x", "options", "id"]
REFS = ["sources.invoices", "sources.requests", "sources.", "sources.Bad", "sources.invoices\n",
        "sources.invoices.x", "steps.read.output", "steps.read", "steps.read.output.x",
        "steps..output", "steps.read.output\n", "sources", "Sources.x", " sources.x", "0.50", ""]
NAMES = ["xero", "slack", "ledger"]


@st.composite
def forbidden(draw) -> str:
    word = draw(st.sampled_from(WORDS)) + draw(st.sampled_from(["", "s"]))
    out = []
    for ch in word:
        ch = draw(st.sampled_from([ch, ch.upper()] + (["\u212a"] if ch == "k" else [])))
        out.append(ch + draw(st.sampled_from(["", "", "", "_", "-", " ", "__"])))
    return draw(st.sampled_from(["", "_", " "])) + "".join(out)


field_names = st.one_of(forbidden(), st.sampled_from(NEAR + PLAIN))
input_names = st.one_of(forbidden(), st.sampled_from(PLAIN + ["connections", "effects",
                                                               "Effects"]))
literals = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2, 9), st.sampled_from(REFS)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(field_names, inner, max_size=3)),
    max_leaves=8)


@st.composite
def effects(draw) -> dict:
    out = {}
    for name in draw(st.lists(st.sampled_from(["draft_bill", "post_summary", "notify"]),
                              unique=True, max_size=3)):
        target = draw(st.sampled_from(["connection", "channel", "connection", "channel", "both",
                                       "neither", "nulls"]))
        e = {"kind": draw(st.sampled_from(["create", "send"])), "key": "invoice_id"}
        if target in ("connection", "both"):
            e["connection"] = draw(st.sampled_from(NAMES))
        if target in ("channel", "both"):
            e["channel"] = draw(st.sampled_from(["finance-requests", "#ops", "Finance Team",
                                                 "finance-requests", " padded", "two\nlines"]))
        if target == "nulls":
            e.update(draw(st.sampled_from([{"connection": None, "channel": "c"},
                                           {"connection": "xero", "channel": None},
                                           {"connection": None, "channel": None}])))
        out[name] = e
    return out


@st.composite
def manifests(draw) -> dict:
    declared = draw(effects())
    steps = []
    for i in range(draw(st.integers(1, 2))):
        step = {"id": ["read", "draft"][i], "explanation": "Does its part.",
                "code": f"steps/s{i}.py:f{i}",
                "inputs": draw(st.dictionaries(input_names, st.one_of(st.sampled_from(REFS),
                                                                      literals), max_size=3))}
        if draw(st.booleans()):
            step["connections"] = draw(st.lists(st.sampled_from(NAMES), max_size=3))
        if draw(st.booleans()):
            step["effects"] = draw(st.lists(st.sampled_from(sorted(declared) or ["x"]),
                                            max_size=3))
        steps.append(step)
    return {"workflow": "demo", "version": 1, "python": "3.11", "trigger": {"manual": {}},
            "connections": {n: {} for n in NAMES},
            "sources": {"invoices": {"connection": "xero"},
                        "requests": {"kind": "channel", "channel": "finance-requests"}},
            "effects": declared, "steps": steps}


COMPARED: Counter = Counter()


def verdicts(data: dict) -> tuple[bool, bool, list[str]]:
    doc = parse_manifest(json.dumps(data, ensure_ascii=False), "workflow.yaml")
    expressed = [p.code for p in doc.problems if p.data.get("schema")]
    return not expressed, VALIDATOR.is_valid(data), expressed


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(manifests())
def test_check_and_the_schema_agree_on_generated_manifests(data):
    ours, schema, codes = verdicts(data)
    COMPARED["manifests"] += 1
    COMPARED["refused" if not ours else "accepted"] += 1
    COMPARED.update(set(codes))
    errors = [] if schema else [e.message[:120] for e in VALIDATOR.iter_errors(data)][:3]
    assert ours == schema, (codes, errors, json.dumps(data)[:600])


def test_every_expressed_rule_was_generated_on_both_sides():
    """What the property above compared (it ran first, in file order)."""
    print(f"schema vs check on generated manifests: {COMPARED['manifests']} compared, "
          f"{COMPARED['refused']} refused, {COMPARED['accepted']} accepted, 0 disagree; "
          f"rules hit: { {k: v for k, v in COMPARED.items() if k.startswith('SM')} }")
    assert COMPARED["manifests"] >= 1000 and COMPARED["accepted"] >= 100
    for code in ("SM108", "SM109", "SM301", "SM102", "SM104", "SM004", "SM005"):
        assert COMPARED[code] >= 10, (code, COMPARED)


def test_the_issue_examples_are_refused_by_both():
    base = {"workflow": "demo", "version": 1, "python": "3.11", "trigger": {"manual": {}},
            "connections": {"xero": {}}, "steps": [
                {"id": "read", "explanation": "Reads.", "code": "steps/r.py:read"}]}
    for step, code in [({"inputs": {"effects": 1}}, "SM108"),
                       ({"inputs": {"connections": "sources.x"}}, "SM108"),
                       ({"connections": ["xero", "xero"]}, "SM109"),
                       ({"inputs": {"api_key": "abc"}}, "SM301"),
                       ({"inputs": {"options": {"nested": [{"API-Key": "abc"}]}}}, "SM301")]:
        data = {**base, "steps": [{**base["steps"][0], **step}]}
        ours, schema, codes = verdicts(data)
        assert (ours, schema, code in codes) == (False, False, True), (step, codes)
