"""Completion data for the allowed modules: what the facades expose, filtered by the dialect."""

from __future__ import annotations

import importlib

import pytest
from stepsmith.runner.harness.facades import public_members
from stepsmith.runner.language.modules_api import (
    CALL_ONLY,
    importable_names,
    members,
    modules,
    resolve,
)
from stepsmith.runner.validator import policy, validate

CLASSES = ["decimal.Decimal", "decimal.Context", "datetime.datetime", "datetime.date",
           "datetime.timedelta", "datetime.timezone", "statistics.NormalDist", "re.Pattern",
           "re.Match", "json.JSONDecoder"]
MODULES = sorted(policy.ALLOWED_MODULES)


def test_modules_are_the_policys():
    assert modules() == ["datetime", "decimal", "json", "math", "re", "statistics"]


@pytest.mark.parametrize("module", MODULES)
def test_module_members_are_the_facades_names_the_validator_accepts(module):
    got = {m.name for m in members(module)}
    facade = set(public_members(importlib.import_module(module)))
    assert got and got <= facade
    for name in sorted(facade - got):  # whatever is left out is refused by the validator
        assert validate(f"import {module}\n\n\ndef f():\n    return {module}.{name}\n"), name


def _use(dotted: str, name: str) -> str:
    module = dotted.split(".")[0]
    expr = f"{dotted}.{name}"
    if name in CALL_ONLY:  # accepted only in the call shape its rule asks for
        expr = f"{expr}(1, seed=0)" if CALL_ONLY[name] == "SS501" else f"'{{}}'.{name}(1)"
    return f"import {module}\n\n\ndef f():\n    return {expr}\n"


@pytest.mark.parametrize("dotted", MODULES + CLASSES)
def test_every_listed_member_passes_the_validator(dotted):
    listed = members(dotted)
    assert listed, dotted
    bad = [(m.name, [p.code for p in validate(_use(dotted, m.name))]) for m in listed]
    assert [b for b in bad if b[1]] == []
    for m in listed:
        assert not m.name.startswith("_") and m.kind in ("module", "class", "function", "constant")
        assert m.kind != "module"  # facades hold no modules
        assert "\n" not in m.doc and "\n" not in m.signature


@pytest.mark.parametrize("dotted,absent", [
    ("datetime.datetime", "mro"), ("datetime.date", "mro"), ("json", "codecs"),
    ("json", "decoder"), ("json", "scanner"), ("statistics", "random"), ("re", "functools"),
    ("re", "enum"), ("datetime", "sys"), ("decimal", "numbers"), ("math", "__doc__"),
    ("decimal.Decimal", "__class__"), ("statistics.NormalDist", "_mu"),
    ("re.Pattern", "__class_getitem__"),
])
def test_refused_names_are_absent(dotted, absent):
    assert absent not in {m.name for m in members(dotted)}
    assert resolve(f"{dotted}.{absent}") is None


def test_known_members_with_kinds_docs_and_signatures():
    by = {m.name: m for m in members("decimal")}
    assert by["Decimal"].kind == "class" and by["Decimal"].signature.startswith("Decimal(")
    assert by["ROUND_HALF_UP"].kind == "constant" and by["ROUND_HALF_UP"].signature == "'ROUND_HALF_UP'"
    assert by["getcontext"].kind == "function"
    dt = {m.name: m for m in members("datetime.datetime")}
    assert {"now", "today", "fromisoformat", "strftime", "year"} <= set(dt)
    assert dt["now"].kind == "function" and dt["now"].doc
    assert {m.name for m in members("math")} >= {"pi", "floor", "isclose", "log"}
    assert next(m for m in members("math") if m.name == "log").signature == "log(x, [base=math.e])"
    assert "samples" in {m.name for m in members("statistics.NormalDist")}


@pytest.mark.parametrize("dotted", ["", "os", "os.path", "json.dumps", "math.pi", "sys",
                                    "urllib.request", "datetime.datetime.mro.x", "decimal.",
                                    "re.sub.__globals__", "builtins", "x" * 10_000, "数学"])
def test_anything_else_has_no_members(dotted):
    assert members(dotted) == []


def test_not_a_string():
    assert members(None) == [] and resolve(3) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("module", MODULES)
def test_importable_names_pass_as_from_imports(module):
    names = importable_names(module)
    assert names == [m.name for m in members(module)]
    assert validate(f"from {module} import {', '.join(names)}\n") == []


def test_importable_names_of_anything_else():
    assert importable_names("os") == [] and importable_names("json.decoder") == []
    assert "decoder" not in importable_names("json")
