"""The manifest's YAML loader (runner/manifest/yamlpos) against references:

- PyYAML `safe_load` (its libyaml loader, with the YAML 1.2 core schema's resolvers, which the loader promises, in
  place of PyYAML's YAML 1.1 ones) on generated documents: the same data, and every value's
  position is where PyYAML's own composer puts that node;
- the official yaml-test-suite (vendored: tests/reference/data/yaml_test_suite.json, from the
  suite's `data` branch, MIT): every valid case the loader accepts gives the suite's JSON, every
  case it refuses is refused for a feature a manifest may not use (anchors, aliases, tags other
  than the core ones, several documents, non-scalar keys), every invalid case is an error;
  where libyaml (a YAML 1.1 parser) reads a case differently from the suite (tabs, directives,
  a few flow-context forms), the loader reads it as PyYAML does, counted apart;
- YAML 1.2 itself (spec 1.2.2 §5.4, §5.2, §10.3.2), where PyYAML is YAML 1.1: NEL, LS and PS are
  ordinary characters, a byte order mark is not content. These cases are written from the spec
  (the suite has no raw NEL/LS/PS case).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stepsmith.runner.manifest.yamlpos import YMap, YScalar, YSeq, load
from stepsmith.runner.problems import Span

SUITE = json.loads((Path(__file__).parent / "data" / "yaml_test_suite.json").read_text("utf-8"))


# --------------------------------------------------------------- PyYAML with the 1.2 core schema


class Core12Loader(yaml.CSafeLoader):
    """PyYAML's safe loader on libyaml (the parser the manifest loader reads events from) with
    the YAML 1.2 core schema's tag resolution (spec §10.3.2) in place of YAML 1.1's."""


Core12Loader.yaml_implicit_resolvers = {}
_CORE = [
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", "~nN"),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
     r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+.0123456789"),
]
for _tag, _rx, _first in _CORE:
    Core12Loader.add_implicit_resolver(
        _tag, re.compile(_rx), list(_first) + ([""] if "~" in _first else []))  # "" is null


def _int(loader, node):
    v = loader.construct_scalar(node)
    return int(v[2:], 8) if v.startswith("0o") else int(v[2:], 16) if v.startswith("0x") else int(v)


def _float(loader, node):
    v = loader.construct_scalar(node)
    low = v.lower()
    if low.endswith(".inf"):
        return -math.inf if v.startswith("-") else math.inf
    return math.nan if low == ".nan" else float(v)


def _str_keys_map(loader, node):  # the loader takes every mapping key as its text
    return {k.value: loader.construct_object(v, deep=True) for k, v in node.value}


Core12Loader.add_constructor("tag:yaml.org,2002:int", _int)
Core12Loader.add_constructor("tag:yaml.org,2002:float", _float)
Core12Loader.add_constructor("tag:yaml.org,2002:map", _str_keys_map)


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _positions(ours, node) -> list[tuple]:
    """(our span start, PyYAML's node start) for every value, walking both trees together."""
    out = [((ours.pos[0], ours.pos[1]), (node.start_mark.line + 1, node.start_mark.column))]
    if isinstance(ours, YMap):
        for pair, (_k, v) in zip(ours.pairs, node.value, strict=True):
            out += _positions(pair.value, v)
    elif isinstance(ours, YSeq):
        for item, v in zip(ours.items, node.value, strict=True):
            out += _positions(item, v)
    return out


# ------------------------------------------------------------------------ generated documents

#: NEL, LS and PS are line breaks to PyYAML (YAML 1.1) and content to YAML 1.2: the spec cases
#: below cover them, the PyYAML comparison leaves them out.
_YAML11 = "\x85\u2028\u2029"
_KEYS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"],
                              exclude_characters=_YAML11), min_size=1, max_size=8)
_PLAIN_TOKENS = st.sampled_from([
    "0", "-0", "+12", "007", "0o17", "0o8", "0x1F", "0xg", "1_000", "0b101", "12:30", "1.5",
    "3.10", "1e3", "1E-3", ".5", "5.", "-.inf", ".Inf", ".NaN", ".nan", "nan", "inf", "~", "null",
    "Null", "NULL", "nULL", "true", "True", "TRUE", "tRUE", "yes", "no", "on", "off", "y", "n",
    "2026-12-01", "12e", "+", ".", "1.2.3", "0x", "0o", "1e+3", "+.5", "-1_0",
])
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-10**30, 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters=_YAML11),
            max_size=20),
)
_DATA = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=4)), max_leaves=12)


@settings(max_examples=700, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_KEYS, _DATA, min_size=1, max_size=5), st.booleans(), st.booleans())
def test_dumped_documents_load_as_pyyaml_loads_them(data, flow, unicode):
    text = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=unicode)
    expected = yaml.load(text, Loader=Core12Loader)  # noqa: S506 - a safe loader subclass
    result = load(text)
    assert result.problems == [], text
    assert _same(result.root.data, expected), text
    pos = _positions(result.root, yaml.compose(text, Loader=Core12Loader))  # noqa: S506
    assert all(a == b for a, b in pos), text


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_PLAIN_TOKENS, st.sampled_from(["", "'", '"'])), min_size=1, max_size=6))
def test_scalar_resolution_is_the_12_core_schema(tokens):
    text = "".join(f"k{i}: {q}{t}{q}\n" for i, (t, q) in enumerate(tokens))
    expected = yaml.load(text, Loader=Core12Loader)  # noqa: S506
    result = load(text)
    assert result.problems == []
    assert _same(result.root.data, expected), text


# ------------------------------------------------------------------------- the official suite

#: Features a manifest refuses on purpose (SM009), recognisable in a case's text.
_REFUSED = re.compile(r"(?:^|[\s\[{,])[&*!]|^---|^\.\.\.|^%|<<|^\s*\?\s|[\[{,]\s*\?\s|^\?$", re.M)


def _documents(text: str) -> list:
    dec, docs, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return docs
        doc, i = dec.raw_decode(text, i)
        docs.append(doc)


def _pyyaml(text: str):
    """PyYAML's reading of a case: ("error",) or ("data", [documents])."""
    try:
        return ("data", list(yaml.load_all(text, Loader=Core12Loader)))  # noqa: S506
    except (yaml.YAMLError, TypeError, ValueError):
        return ("error",)


def _suite_verdicts():
    """Each case in one bucket: `agree` (the suite's data), `errors` (an invalid case refused),
    `refused` (a feature a manifest may not use, SM009, or data JSON cannot hold), `parser`
    (the suite and libyaml differ, and PyYAML's reading of the case is ours: a YAML 1.1 parser's
    behaviour, not the loader's), `disagree` (ours alone)."""
    buckets: dict[str, list[str]] = {k: [] for k in ("agree", "errors", "refused", "parser", "disagree")}
    for cid, case in sorted(SUITE["cases"].items()):
        text = case["yaml"]
        result = load(text)
        codes = {p.code for p in result.problems}
        docs = _documents(case["json"]) if case["json"] is not None else None
        if case["error"]:
            verdict = "errors" if result.problems else None
        elif "SM009" in codes and _REFUSED.search(text):
            verdict = "refused"
        elif result.problems:
            verdict = None
        elif docs is None:  # valid, but no JSON form in the suite (e.g. a key that is not text)
            verdict = "refused"
        elif len(docs) == 1 and _same(result.root.data, docs[0]):
            verdict = "agree"
        elif len(docs) == 0 and result.root is None:
            verdict = "agree"
        else:
            verdict = None
        if verdict is None:
            ref = _pyyaml(text)
            # an empty document is None to both (our root None, PyYAML's [] or [None])
            ours = ("error",) if result.problems else \
                ("data", None if result.root is None else result.root.data)
            shared = ours[0] == ref[0] == "error" or (
                ours[0] == ref[0] == "data" and len(ref[1]) <= 1
                and _same(ours[1], ref[1][0] if ref[1] else None))
            verdict = "parser" if shared else "disagree"
        buckets[verdict].append(cid)
    return buckets


def test_yaml_test_suite():
    b = _suite_verdicts()
    print("yaml-test-suite:", ", ".join(f"{len(v)} {k}" for k, v in b.items()))
    assert b["disagree"] == []
    assert len(b["agree"]) >= 180 and len(b["errors"]) >= 80 and len(b["parser"]) <= 75


# ---------------------------------------------------------------------- YAML 1.2 over PyYAML


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85"])
@pytest.mark.parametrize("form", ['"a{c}b"', "'a{c}b'", "a{c}b", "|\n  a{c}b", ">\n  a{c}b"])
def test_nel_ls_ps_are_kept_in_values(char, form):
    """YAML 1.2 §5.4: only LF and CR are line breaks; NEL, LS and PS are content."""
    text = "k: " + form.format(c=char) + "\nnext: 1\n"
    result = load(text)
    assert result.problems == []
    assert result.root.data["k"].rstrip("\n") == f"a{char}b"
    nxt = result.root.get("next")
    assert (nxt.span.line, nxt.span.column) == (text.split("\n").index("next: 1") + 1, 6)


def test_nel_in_a_key_and_beside_an_escape_of_a_private_use_character():
    text = 'a\u2028b: "\\ue000\u2029\\U0000E001"\n'
    assert load(text).root.data == {"a\u2028b": "\ue000\u2029\ue001"}


def test_byte_order_mark_is_a_column_of_the_text_as_given():
    """§5.2: a BOM may start the stream and is not content; but positions are in the
    coordinates of the text as given: a client that keeps the BOM in its buffer (didOpen)
    counts it as the first character of line 1, so every line-1 position after it is one
    column on (readers of files drop it as they decode: then it is not in the text)."""
    text = "\ufeffworkflow: w\nversion: 3\n"
    r = load(text)
    assert r.problems == []
    wf = r.root.get("workflow")
    assert (wf.span.line, wf.span.column, wf.span.end_column) == (1, 11, 12)
    assert r.root.pairs[0].key.span.column == 1
    assert r.root.get("version").span == load(text[1:]).root.get("version").span
    assert load(text).root.get("workflow").span.column == 11  # again: no shift twice


@pytest.mark.parametrize("text", ['a: [1, 2\n', 'a: "x\nb: 2\n', "a: b: c\n", "k: v\n\tj: w\n"])
def test_byte_order_mark_moves_errors_on_line_one_only(text):
    def where(t):
        return [(p.code, p.span) for p in load(t).problems]
    plain = where(text)
    assert plain != []
    assert where("\ufeff" + text) == [
        (code, Span(s.line, s.column + (s.line == 1), s.end_line,
                    s.end_column + (s.end_line == 1))) for code, s in plain]


@pytest.mark.parametrize("form", ["{n}", "-{n}", "!!int {n}"])
def test_too_long_integer_is_a_value_error_at_the_value(form):
    digits = "1" * 5000
    text = "workflow: w\nversion: " + form.format(n=digits) + "\n"
    r = load(text)
    assert [p.code for p in r.problems] == ["SM005"]
    sp = r.problems[0].span
    start = text.index(digits) - (1 if form.startswith("-") else 0)
    assert (sp.line, sp.column) == (2, start - text.index("version"))
    assert "5000 digits" in r.problems[0].message


def test_too_long_integer_typed_over_a_remembered_document():
    load("a: 1\nb: 2\n", "kbd.yaml")
    r = load("a: 1\nb: " + "9" * 5000 + "\n", "kbd.yaml")  # the one-line-edit shortcut's path
    assert [(p.code, p.span.line, p.span.column) for p in r.problems] == [("SM005", 2, 3)]


@pytest.mark.parametrize(("text", "where"), [
    ("version: !!int 3\n", (1, 15)),
    ("python: !!str 3.11\n", (1, 14)),
    ("python: ! '3.11'\n", (1, 10)),
    ("python: !<tag:yaml.org,2002:str> x\n", (1, 33)),
    ("python: !!str\n  # why\n  x\n", (3, 2)),
    ("a: !!null\nb: 1\n", None),
])
def test_tagged_scalar_starts_at_its_text_not_its_tag(text, where):
    node = load(text).root.pairs[0].value
    assert isinstance(node, YScalar)
    if where is None:  # no text of its own: an empty span where the value ends
        assert (node.span.line, node.span.column) == (node.span.end_line, node.span.end_column)
    else:
        assert (node.span.line, node.span.column) == where
