"""Each operator, on its own example and on the cases that are easy to get wrong: positions in
code points, parentheses, f-strings and docstrings left alone, the validator's refusals, the
opt-out comment. Pure: no sandbox."""

import ast
import textwrap

import pytest
from stepsmith.runner.mutants import generate, operators
from stepsmith.runner.mutants.apply import Edit, Source, apply


def _body(snippet: str, imports: str = "") -> str:
    return imports + "def f(a, b, rows, late, paid, due, x):\n" + textwrap.indent(snippet, "    ") + "\n"


def _mutants(text: str) -> list[tuple[str, str]]:
    """(operator, whole mutated text) of every mutation of f."""
    return [(m.operator, apply(text, m.edit)) for _, m in generate.mutations(text, ["f"])]


EXPECTED_OPERATORS = {"comparison", "equality", "arithmetic", "boolean", "not", "number",
                      "decimal", "string", "rounding", "quantize", "min-max", "sorted",
                      "return", "if", "emit", "slice"}


def test_the_catalogue_is_the_one_the_guide_documents():
    assert {op.name for op in operators.OPERATORS} == EXPECTED_OPERATORS
    assert all(op.changes for op in operators.OPERATORS)


@pytest.mark.parametrize("op", operators.OPERATORS, ids=lambda op: op.name)
def test_each_operator_makes_its_example(op):
    before, after = op.example
    imports = "import decimal\nfrom decimal import Decimal\n"
    text = _body(before, imports)
    made = [t for name, t in _mutants(text) if name == op.name]
    assert _body(after, imports) in made, made


def test_positions_are_code_points_and_other_lines_stay_put():
    text = _body('label = "café"; ok = a <= b')
    (m,) = [m for _, m in generate.mutations(text, ["f"]) if m.operator == "comparison"]
    line = text.splitlines()[1]
    assert line[m.edit.column:m.edit.end_column] == "<="  # a str index, not a UTF-8 offset
    assert (m.edit.line, m.original, m.replacement) == (2, "<=", "<")
    assert apply(text, m.edit).splitlines()[1] == '    label = "café"; ok = a < b'


def test_not_is_dropped_without_its_parentheses():
    text = _body("return not (late and paid)")
    made = dict((op, t) for op, t in _mutants(text) if op == "not")
    assert made["not"] == _body("return (late and paid)")


def test_every_boolean_operator_of_a_chain_is_swapped_alone():
    text = _body("return late and paid or due")
    made = sorted(t for op, t in _mutants(text) if op == "boolean")
    assert made == sorted([_body("return late or paid or due"),
                           _body("return late and paid and due")])


def test_comparison_boundaries_and_the_hint():
    text = _body("return a < b >= x")
    found = [m for _, m in generate.mutations(text, ["f"]) if m.operator == "comparison"]
    assert [(m.original, m.replacement) for m in found] == [("<", "<="), (">=", ">")]
    assert found[0].hint == "no fixture has a equal to b: record one at the boundary"


def test_arithmetic_leaves_text_joined_or_formatted_alone():
    text = _body('s = "a" + x\nt = "%s" % x\nn = a // b\nn %= 3\nreturn n')
    made = [(m.original, m.replacement) for _, m in generate.mutations(text, ["f"])
            if m.operator == "arithmetic"]
    assert made == [("//", "%"), ("%=", "//=")]


def test_decimal_amounts_move_by_one_unit_in_their_last_place():
    text = _body('return Decimal("0.50") + Decimal(\'1250\')', "from decimal import Decimal\n")
    made = [(m.original, m.replacement) for _, m in generate.mutations(text, ["f"])
            if m.operator == "decimal"]
    assert made == [('Decimal("0.50")', 'Decimal("0.49")'), ('Decimal("0.50")', 'Decimal("0.51")'),
                    ("Decimal('1250')", "Decimal('1249')"), ("Decimal('1250')", "Decimal('1251')")]


def test_quantize_places_and_not_its_tolerance():
    text = _body('return a.quantize(Decimal("1"))', "from decimal import Decimal\n")
    ops = {(m.operator, m.replacement) for _, m in generate.mutations(text, ["f"])}
    assert ("quantize", 'quantize(Decimal("1E+1"))') in ops
    assert ("quantize", 'quantize(Decimal("0.1"))') in ops
    assert not any(op == "decimal" for op, _ in ops)


@pytest.mark.parametrize(("imports", "use", "replacement"), [
    ("from decimal import ROUND_HALF_UP, ROUND_HALF_EVEN\n", "ROUND_HALF_UP", "ROUND_HALF_EVEN"),
    ("import decimal\nfrom decimal import ROUND_HALF_UP\n", "ROUND_HALF_UP",
     "decimal.ROUND_HALF_EVEN"),
    ("from decimal import ROUND_HALF_EVEN\n", "ROUND_HALF_EVEN", '"ROUND_HALF_UP"'),
    ("import decimal as d\n", "d.ROUND_HALF_EVEN", "d.ROUND_HALF_UP"),
])
def test_rounding_modes_swap_in_a_form_that_resolves(imports, use, replacement):
    text = _body(f"return a.quantize(b, rounding={use})", imports)
    made = [t for op, t in _mutants(text) if op == "rounding"]
    assert made == [_body(f"return a.quantize(b, rounding={replacement})", imports)]
    assert compile(made[0], "m", "exec")


def test_a_name_that_is_not_decimals_is_not_a_rounding_mode():
    text = _body("ROUND_UP = 1\nreturn ROUND_UP")
    assert not [t for op, t in _mutants(text) if op == "rounding"]


def test_sorted_reverse_added_flipped_or_negated():
    text = _body("xs = sorted(rows)\nrows.sort()\nys = sorted(rows, reverse=True)\n"
                 "zs = sorted(rows, reverse=late)\nreturn xs")
    made = [(m.original, m.replacement) for _, m in generate.mutations(text, ["f"])
            if m.operator == "sorted"]
    assert made == [("", "reverse=True"), ("", "reverse=True"), ("reverse=True", "reverse=False"),
                    ("reverse=late", "reverse=not (late)")]
    for op, t in _mutants(text):
        if op == "sorted":
            compile(t, "m", "exec")


def test_emit_removed_keeps_the_line_count():
    text = _body('effects.emit("send", {\n    "id": a,\n})\nreturn a').replace(
        "def f(a, b, rows, late, paid, due, x)", "def f(a, b, rows, late, paid, due, x, effects)")
    (mutant,) = [t for op, t in _mutants(text) if op == "emit"]
    assert len(mutant.splitlines()) == len(text.splitlines())
    assert "    pass\n" in mutant and "emit" not in mutant
    compile(mutant, "m", "exec")


def test_if_forced_both_ways_and_slices_moved():
    text = _body("if late:\n    return rows[1:x]\nreturn rows[:3]")
    made = {(m.operator, m.original, m.replacement) for _, m in generate.mutations(text, ["f"])}
    assert {("if", "late", "True"), ("if", "late", "False")} <= made
    assert {("slice", "1", "2"), ("slice", "1", "0"), ("slice", "x", "x + 1"),
            ("slice", "x", "x - 1"), ("slice", "3", "4"), ("slice", "3", "2")} <= made
    assert not any(op == "number" for op, _, _ in made)  # the slice operator owns those


def test_fstrings_docstrings_keys_and_defaults_are_not_mutated():
    text = ('def f(a, limit=10):\n    """Say 1 + 2."""\n'
            '    return {"amount": f"{a + 1:>10}", "x": a["k"]}\n')
    made = [(m.operator, m.original) for _, m in generate.mutations(text, ["f"])]
    assert made == [("return", 'return {"amount": f"{a + 1:>10}", "x": a["k"]}')]


def test_only_the_functions_asked_for():
    text = "def f(a):\n    return a + 1\n\n\ndef g(a):\n    return a - 1\n"
    assert {fn for fn, _ in generate.mutations(text, ["g"])} == {"g"}


def test_opted_out_lines_are_listed_not_run():
    text = _body("ok = a <= b  # stepsmith: no-mutate\nreturn ok")
    found = generate.file_mutants(text, ["f"], python="3.11")
    assert [(o.line, o.mutants) for o in found.opted_out] == [(2, 1)]
    assert found.opted_out[0].text == "ok = a <= b  # stepsmith: no-mutate"
    assert all(m.line != 2 for m in found.mutants)
    assert any(m.line == 3 for m in found.mutants)


def test_mutants_the_validator_refuses_are_counted_not_kept(monkeypatch):
    def dunder(ctx, node):
        if isinstance(node, ast.Return):
            yield operators.Mutation("dunder", Edit(*ctx.source.span(node.value), "a.__class__"),
                                     "a", "a.__class__", "")

    extra = operators.Operator("dunder", "a forbidden attribute", ("", ""), dunder)
    monkeypatch.setattr(generate, "OPERATORS", (*operators.OPERATORS, extra))
    found = generate.file_mutants(_body("return a"), ["f"], python="3.11")
    assert found.refused == 1
    assert [m.mutation.operator for m in found.mutants] == ["return"]


def test_closure_follows_calls_by_name():
    tree = ast.parse("import json\n\ndef h(x):\n    return x\n\ndef g(x):\n    return h(x)\n\n"
                     "def f(x):\n    return g(x)\n\ndef other(x):\n    return x\n")
    names = [getattr(n, "name", "import") for n in generate.closure(tree, ["f"])]
    assert names == ["import", "h", "g", "f"]


def test_source_segments_span_lines():
    src = Source("a = (1 +\n     2)\n")
    node = ast.parse(src.text).body[0].value
    assert src.text_of(node) == "1 +\n     2"
    assert src.short(node) == "1 + 2"
