"""The JSON Schema (schemas/workflow.schema.json, what any YAML tool validates with) and
`check` (the pydantic model, plus the positioned rules of one manifest the schema expresses
too: reserved and forbidden input names, repeated grants, malformed references, the trigger's
one kind) accept and refuse the same manifests.

Reference: `jsonschema`'s Draft 2020-12 validator on the checked-in schema, against
`Workflow.model_validate` and those rules of `check_crossrefs` on the same data. Inputs: systematic mutations of the bundled
examples and of a schedule-triggered manifest (every key dropped, an unknown key added at every
mapping, every value replaced by null / a whole-number float / a string / a number / a string
with a trailing newline / a list, bad and edge-case cron expressions and timezones, source kinds
with null fields), plus hypothesis-generated ones. Cross references (names a step uses being
declared, ...) the schema cannot express: not compared here (docs/guide.md lists them).
tests/reference/test_schema_check_agreement.py generates manifests aimed at the rules the
positioned check shares with the schema.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from stepsmith.runner.manifest.crossref import check_crossrefs
from stepsmith.runner.manifest.model import Workflow
from stepsmith.runner.manifest.yamlpos import load

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "schemas" / "workflow.schema.json").read_text("utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

SCHEDULED = """\
workflow: invoice-matching
version: 3
python: "3.11"
timezone: Europe/London
trigger:
  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}
connections:
  xero: {description: Ledger}
sources:
  invoices: {connection: xero, description: Supplier invoices}
  alerts: {kind: channel, channel: billing_alerts}
  open_items: {kind: graph, query: open_invoices}
effects:
  draft_bill: {connection: xero, kind: create, key: invoice_id}
steps:
  - id: match
    explanation: Pair each invoice with its purchase order.
    code: steps/match.py:match
    inputs: {invoices: sources.invoices, tolerance: "0.50"}
    network: none
    connections: [xero]
    effects: [draft_bill]
"""
MANUAL = SCHEDULED.replace(
    'trigger:\n  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}\n',
    "trigger:\n  manual: {description: Finance runs it}\n")


def _data(text: str):
    result = load(text)
    assert result.problems == []
    return result.root.data


BASES = {
    "scheduled": _data(SCHEDULED),
    "manual": _data(MANUAL),
    **{p.parent.name: _data(p.read_text("utf-8")) for p in sorted((REPO / "examples").glob("*/workflow.yaml"))},
}


def model_accepts(data) -> bool:
    try:
        Workflow.model_validate(data)
    except ValidationError:
        return False
    return True


def schema_accepts(data) -> bool:
    return VALIDATOR.is_valid(data)


def expressed_by_check(data) -> list[str]:
    """The codes of the positioned check's findings the schema expresses too (`data.schema`),
    on the manifest written as JSON (which is YAML)."""
    loaded = load(json.dumps(data, ensure_ascii=False))
    assert loaded.problems == [] and loaded.root.data == data
    found: list[str] = []
    def add(code, _message, _span, _step=None, data=None):
        if (data or {}).get("schema"):
            found.append(code)

    check_crossrefs(loaded.root, add)
    return found


def check_accepts(data) -> bool:
    """`check`'s verdict on what the schema can say: the model, then the expressed rules."""
    return model_accepts(data) and not expressed_by_check(data)


# ------------------------------------------------------------------------------ mutations

REPLACEMENTS = [None, 3.0, 1e3, 0, -1, 2.5, True, "", "text", "text\n", [], {}, ["a"], "Europe/London"]
CRONS = ["0 0 31 2 *", "0 0 30 2 *", "0 0 31 4,6,9,11 *", "0 0 29 2 *", "@daily", "@hourly",
         "@weekly", "@reboot", "0 7 * * 1-5\n", "60 * * * *", "0 7 * *", "0 7 * * 1-5 *",
         "5-1 * * * *", "*/0 * * * *", "0 7 * * MON-FRI", "0 0 1 jan,JUL *", "0\u00a07 * * *",
         " 0 7 * * * ", "0 0 L * *", "0 0 31 2 1", "0 0 30-31 feb *", "*/90 * * * *"]
ZONES = ["Europe/London", "UTC", "America/New_York", "Asia/Kolkata", "europe/london",
         "Europe/Londn", "Mars/Olympus", "", "Europe/London\n", "EST5EDT", "Etc/GMT+5",
         "posixrules", "localtime", "Factory", "../etc/passwd", "Europe/London "]


def _paths(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*path, i))


def _set(data, path, value=None, *, drop=False):
    out = copy.deepcopy(data)
    node = out
    for p in path[:-1]:
        node = node[p]
    if drop:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


def mutations():
    for base_name, base in BASES.items():
        yield f"{base_name}", base
        for path, node in _paths(base):
            if path and isinstance(path[-1], str):
                yield f"{base_name}: drop {path}", _set(base, path, drop=True)
            if isinstance(node, dict):
                yield f"{base_name}: unknown key at {path}", _set(base, (*path, "extra"), 1)
                yield f"{base_name}: bad key at {path}", _set(base, (*path, "Bad Key\n"), {})
            if path:
                for r in REPLACEMENTS:
                    yield f"{base_name}: {path} = {r!r}", _set(base, path, r)
                if isinstance(node, str):
                    yield f"{base_name}: {path} + newline", _set(base, path, node + "\n")
                if isinstance(node, int) and not isinstance(node, bool):
                    yield f"{base_name}: {path} as float", _set(base, path, float(node))
        if "schedule" in base["trigger"]:
            for c in CRONS:
                yield f"{base_name}: cron {c!r}", _set(base, ("trigger", "schedule", "cron"), c)
            for z in ZONES:
                yield f"{base_name}: zone {z!r}", _set(base, ("trigger", "schedule", "timezone"), z)
                yield f"{base_name}: top zone {z!r}", _set(base, ("timezone",), z)
        for kind in ("connection", "channel", "graph"):
            for extra in ({}, {"connection": None}, {"channel": None}, {"query": None},
                          {"connection": "xero"}, {"channel": "c"}, {"query": "q"}):
                src = {"kind": kind, **{"connection": {"connection": "xero"}, "channel": {"channel": "c"},
                                        "graph": {"query": "q"}}[kind], **extra}
                yield f"{base_name}: source {src}", _set(base, ("sources", "probe"), src)
                if kind == "connection":
                    bare = {k: v for k, v in src.items() if k != "kind"}
                    yield f"{base_name}: source {bare}", _set(base, ("sources", "probe"), bare)
        trig = base["trigger"]
        for t in ({"schedule": None}, {"event": None}, {"manual": None}, {},
                  {"event": {"name": "x.y", "connection": None}}, {"event": {"name": "x.y"}},
                  {"schedule": {"cron": "0 7 * * *", "timezone": "UTC"}, "manual": None},
                  {**trig, "event": None}):
            yield f"{base_name}: trigger {t}", _set(base, ("trigger",), t)


CASES = list(mutations())


def _verdicts():
    agree, disagree = 0, []
    for name, data in CASES:
        m, s = check_accepts(data), schema_accepts(data)
        if m == s:
            agree += 1
        else:
            disagree.append(f"{name}: check {'accepts' if m else 'refuses'}, schema {'accepts' if s else 'refuses'}")
    return agree, disagree


def test_schema_and_model_agree_on_every_mutation():
    agree, disagree = _verdicts()
    accepted = sum(check_accepts(d) for _, d in CASES)
    print(f"schema vs check: {agree} of {len(CASES)} mutated manifests agree "
          f"({accepted} accepted by check), {len(disagree)} disagree")
    assert disagree == [], "\n".join(disagree[:40])
    assert len(CASES) >= 1000 and 0 < accepted < len(CASES)


_JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 5), st.sampled_from([3.0, 1.5, 1e3, -0.0]),
              st.sampled_from(["", "x", "a\n", "steps/x.py:f", "sources.invoices", "UTC", "none",
                               "0 7 * * *", "public_egress", "Bad", "create"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(["kind", "connection", "channel", "query",
                                                             "description", "x", "name"]), inner,
                                            max_size=3)),
    max_leaves=6)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(sorted(BASES)), st.data())
def test_generated_mutations_agree(base_name, data):
    base = BASES[base_name]
    paths = [p for p, _ in _paths(base) if p]
    path = data.draw(st.sampled_from(paths))
    value = data.draw(_JSONISH)
    mutated = _set(base, path, value)
    assert check_accepts(mutated) == schema_accepts(mutated), (path, value)


def _patterns(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "pattern" and isinstance(v, str):
                out.add(v)
            elif k == "patternProperties":
                out.update(v)
            if k not in ("enum", "examples", "defaultSnippets"):
                _patterns(v, out)
    elif isinstance(node, list):
        for v in node:
            _patterns(v, out)
    return out


PROBES = ["", "a", "abc", "abc\n", "\nabc", "a b", "invoice-matching", "x_1", "A", "3.11", "3.11\n",
          "steps/x.py:f", "steps/x.py:f\n", " steps/x.py:f", "\x1csteps/x.py:f", "\ufeffx.py:f",
          "\u0085", "\x1c", "\ufeff", "\u00a0x", "invoice.received", "0 7 * * 1-5", "0 7 * * 1-5\n",
          "@daily", "@DAILY\t", "0 0 31 2 *", "0 0 30 feb *", "0 0 31 2 1", "*/90 9-17 * jan-MAR sun-7",
          "0 0 29 2 *", "5-1 * * * *", "0 0 31 4,6,9,11 *", "0 0 31 2-4/2 *", "0\u00a07 * * *",
          "api_key", "Api-Keys", " to ken ", "tokens\n", "access_token", "\u212aey", "a\u212aey",
          "sources.x", "sources.x.y", "steps.a.output", "steps.a.output\n", "steps..output"]


def test_every_schema_pattern_means_the_same_in_python_and_ecmascript():
    """jsonschema (Python `re.search`) and yaml-language-server (a JavaScript `RegExp` with the
    `u` flag) read each pattern of the schema alike on the same probes."""
    node = shutil.which("node")
    if node is None and not os.environ.get("STEPSMITH_STRICT"):
        pytest.skip("node not found")
    assert node, "node not found (STEPSMITH_STRICT=1)"
    patterns = sorted(_patterns(SCHEMA, set()))
    script = ("const [ps, xs] = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "console.log(JSON.stringify(ps.map(p => xs.map(x => new RegExp(p, 'u').test(x)))));")
    out = subprocess.run([node, "-e", script], input=json.dumps([patterns, PROBES]),
                         capture_output=True, text=True, check=True, timeout=60).stdout
    ecma = json.loads(out)
    python = [[re.search(p, x) is not None for x in PROBES] for p in patterns]
    for p, e, py in zip(patterns, ecma, python, strict=True):
        assert e == py, (p[:80], [x for x, a, b in zip(PROBES, e, py, strict=True) if a != b])
    assert len(patterns) >= 8
