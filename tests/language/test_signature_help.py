"""Signature help in step files, cursor-marker tests on a WorkspaceSnapshot: the allowed
modules' callables through the file's imports, the file's own functions (a step function's
parameters say where their values come from), the active parameter; nothing for builtins."""

from __future__ import annotations

import pytest
from cursor_kit import cursor
from fix_cases_kit import snapshot
from stepsmith.runner.language.signature_help import signature_help
from stepsmith.runner.workspace.index import norm

HEAD = "import decimal\nimport datetime as dt\nfrom statistics import mean\n\n\n"
BODY = "def read(invoices):\n    x = {call}\n    return invoices\n"


def help_at(tmp_path, marked: str):
    text, line, col = cursor(marked)
    snap = snapshot(tmp_path, {"steps/read.py": text})
    return signature_help(snap, norm(tmp_path / "steps/read.py"), line, col)


@pytest.mark.parametrize("call, label, active", [
    ("decimal.Decimal(|", "Decimal(value='0', context=None)", 0),
    ("decimal.Decimal('1', |", "Decimal(value='0', context=None)", 1),
    ("decimal.Decimal(context=|", "Decimal(value='0', context=None)", 1),
    ("mean(|", "mean(data)", 0),
    ("dt.timedelta(days=1, |", None, None),  # checked below: a docstring signature
    ("decimal.Decimal(mean([1, 2]), |", "Decimal(value='0', context=None)", 1),
    ("decimal.Decimal(mean(|", "mean(data)", 0),
    ("decimal.Decimal('1').quantize(|", None, None),  # a method of a value: unknown type
    ("round(|", None, None),  # builtins: not the dialect's modules
    ("unknown.thing(|", None, None),
])
def test_allowed_module_callables(tmp_path, call, label, active):
    got = help_at(tmp_path, HEAD + BODY.format(call=call))
    if call.startswith("dt.timedelta"):
        assert got is not None and got.signature.label.startswith("timedelta(")
        return
    if label is None:
        assert got is None
        return
    assert (got.signature.label, got.active_parameter) == (label, active)


def test_a_multi_line_call_and_a_string_with_parentheses(tmp_path):
    got = help_at(tmp_path, HEAD + "def read(invoices):\n    x = decimal.Decimal(\n"
                  "        '(1,2)',\n        |\n")
    assert (got.signature.label, got.active_parameter) == ("Decimal(value='0', context=None)", 1)


def test_a_step_function_says_where_each_parameter_comes_from(tmp_path):
    src = ("import json\n\n\ndef read(invoices):\n    return json.dumps(invoices)\n\n\n"
           "def again(rows):\n    return read(|\n")
    got = help_at(tmp_path, src)
    assert got.signature.label == "read(invoices)" and got.active_parameter == 0
    (p,) = got.signature.parameters
    assert p.doc == "input from `sources.invoices` (the step's `inputs`)"


def test_an_import_inside_the_function_being_typed(tmp_path):
    got = help_at(tmp_path, "def read(invoices):\n    import re\n    return re.sub(|\n")
    assert got.signature.label == "sub(pattern, repl, string, count=0, flags=0)"


def test_nothing_on_a_def_or_outside_a_call(tmp_path):
    assert help_at(tmp_path, "def read(|invoices):\n    return 1\n") is None
    assert help_at(tmp_path, HEAD + "def read(invoices):\n    x = decimal.Decimal(1)|\n") is None
