"""Signature help data: the allowed modules' callables, and a step's own functions."""

from __future__ import annotations

import pytest
from stepsmith.runner.language.modules_api import members
from stepsmith.runner.language.signatures import (
    CONNECTIONS_DOC,
    EFFECTS_DOC,
    signature_of,
    step_signature,
)
from stepsmith.runner.validator import policy


def params(sig):
    return [p.label for p in sig.parameters]


def test_inspect_readable_signature():
    sig = signature_of("re.sub")
    assert sig.label == "sub(pattern, repl, string, count=0, flags=0)"
    assert params(sig) == ["pattern", "repl", "string", "count=0", "flags=0"]
    assert sig.doc.startswith("Return the string obtained")


def test_methods_drop_self_and_markers():
    sig = signature_of("decimal.Decimal.quantize")
    assert sig.label == "quantize(exp, rounding=None, context=None)"
    assert params(signature_of("math.floor")) == ["x"]  # `(x, /)`: no `/` parameter


def test_keyword_only_and_var_keyword():
    sig = signature_of("json.dumps")
    assert params(sig)[:2] == ["obj", "skipkeys=False"] and params(sig)[-1] == "**kw"


@pytest.mark.parametrize("dotted,label,names", [
    ("math.log", "log(x, [base=math.e])", ["x", "base=math.e"]),
    ("math.hypot", "hypot(*coordinates) -> value", ["*coordinates"]),
    ("datetime.datetime", ("datetime(year, month, day[, hour[, minute[, second[, microsecond"
     "[,tzinfo]]]]])"), ["year", "month", "day", "hour", "minute", "second", "microsecond",
                        "tzinfo"]),
    ("datetime.date", "date(year, month, day) --> date object", ["year", "month", "day"]),
])
def test_docstring_fallback_for_builtins(dotted, label, names):
    sig = signature_of(dotted)
    assert sig.label == label and params(sig) == names


def test_parameter_spans_point_into_the_label():
    for dotted in ("re.sub", "math.log", "datetime.datetime", "statistics.NormalDist.samples"):
        sig = signature_of(dotted)
        for p in sig.parameters:
            start, end = p.span
            assert sig.label[start:end] == p.label
        starts = [p.span[0] for p in sig.parameters]
        assert starts == sorted(starts)


def test_unreadable_signature_still_answers():
    sig = signature_of("datetime.date.isoformat")
    assert sig.label.startswith("isoformat(") and sig.doc


@pytest.mark.parametrize("dotted", ["os.system", "json.codecs.open", "datetime.datetime.mro",
                                    "math.pi", "decimal", "", "re._compile", "eval"])
def test_nothing_for_what_the_dialect_does_not_reach(dotted):
    assert signature_of(dotted) is None


def test_every_allowed_callable_has_a_signature():
    for module in sorted(policy.ALLOWED_MODULES):
        for m in members(module):
            if m.kind in ("function", "class"):
                sig = signature_of(f"{module}.{m.name}")
                assert sig is not None and sig.label.startswith(m.name + "("), m.name


STEP = '''\
import json


def draft(matches, connections, effects):
    """Draft a bill for each clean match."""
    return json.dumps(matches)


def helper(x):
    return x
'''


def test_step_signature_explains_inputs_connections_and_effects():
    sig = step_signature(STEP, "draft", inputs={"matches": "steps.match.output"},
                         connections=["xero"], effects=["draft_bill"])
    assert sig.label == "draft(matches, connections, effects)"
    assert sig.doc == "Draft a bill for each clean match."
    docs = {p.label: p.doc for p in sig.parameters}
    assert docs["matches"] == "input from `steps.match.output` (the step's `inputs`)"
    assert docs["connections"] == CONNECTIONS_DOC + " (this step: xero)"
    assert docs["effects"] == EFFECTS_DOC + " (this step: draft_bill)"
    assert [sig.label[slice(*p.span)] for p in sig.parameters] == ["matches", "connections",
                                                                  "effects"]


def test_step_signature_without_manifest_data():
    sig = step_signature(STEP, "helper")
    assert sig.label == "helper(x)" and "inputs" in sig.parameters[0].doc and sig.doc == ""


@pytest.mark.parametrize("source,function", [
    (STEP, "missing"), ("def f(:\n", "f"), (STEP, "json"), ("x" * (2 * 1024 * 1024), "f"),
    ("def outer():\n    def inner(a):\n        pass\n", "inner"), (None, "f"),
])
def test_step_signature_none(source, function):
    assert step_signature(source, function) is None
