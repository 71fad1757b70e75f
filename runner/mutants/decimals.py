"""The operators of exact money: a `Decimal("...")` amount or tolerance moved by one unit in its
last place, `quantize` to one place fewer and one more, and the rounding modes swapped
(ROUND_HALF_UP and ROUND_HALF_EVEN first: where a half cent goes)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation

from stepsmith.runner.mutants.apply import Edit
from stepsmith.runner.mutants.mutation import Context, Mutation, at, call_name


def _decimal_literal(ctx: Context, node: ast.AST) -> tuple[ast.Constant, Decimal] | None:
    """The string argument of `Decimal("...")` and its value, when it is a finite number."""
    if call_name(node) != "Decimal" or len(node.args) != 1 or node.keywords:
        return None
    arg = node.args[0]
    if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
        return None
    try:
        value = Decimal(arg.value.strip())
    except InvalidOperation:
        return None
    return (arg, value) if value.is_finite() else None


def _quoted(ctx: Context, arg: ast.Constant, value: str) -> str:
    q = ctx.source.text_of(arg)[:1]
    return f"{q}{value}{q}" if q in ("'", '"') else repr(value)


def _is_quantize_arg(ctx: Context, node: ast.AST) -> bool:
    p = ctx.parent(node)
    return call_name(p) == "quantize" and bool(p.args) and p.args[0] is node


def decimal(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    found = _decimal_literal(ctx, node)
    if found is None or _is_quantize_arg(ctx, node):
        return
    arg, value = found
    step = Decimal((0, (1,), value.as_tuple().exponent))
    for new in (value + step, value - step):
        repl = _quoted(ctx, arg, str(new))
        orig = ctx.source.text_of(arg)
        yield Mutation("", at(ctx, arg, repl), f"Decimal({orig})", f"Decimal({repl})",
                       f"no fixture notices if Decimal({orig}) becomes Decimal({repl}): record "
                       "one at exactly that amount")


def quantize(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    found = _decimal_literal(ctx, node)
    if found is None or not _is_quantize_arg(ctx, node):
        return
    arg, value = found
    exp = value.as_tuple().exponent
    for new_exp, what in ((exp + 1, "one place fewer"), (exp - 1, "one place more")):
        repl = _quoted(ctx, arg, str(Decimal((0, (1,), new_exp))))
        orig = ctx.source.text_of(arg)
        yield Mutation("", at(ctx, arg, repl), f"quantize(Decimal({orig}))",
                       f"quantize(Decimal({repl}))",
                       f"no fixture notices rounding to {what}: record one with more "
                       "decimal places than the result keeps")


_ROUNDING = {"ROUND_HALF_UP": "ROUND_HALF_EVEN", "ROUND_HALF_EVEN": "ROUND_HALF_UP",
             "ROUND_HALF_DOWN": "ROUND_HALF_UP", "ROUND_UP": "ROUND_DOWN",
             "ROUND_DOWN": "ROUND_UP", "ROUND_CEILING": "ROUND_FLOOR",
             "ROUND_FLOOR": "ROUND_CEILING", "ROUND_05UP": "ROUND_DOWN"}
_ROUNDING_HINT = ("no fixture has a value where {a} and {b} round differently: record one with "
                  "an amount exactly halfway (e.g. 2.675 to cents)")


def rounding(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if isinstance(node, ast.Attribute) and node.attr in _ROUNDING:
        other = _ROUNDING[node.attr]
        *_, end_line, end_col = ctx.source.span(node)
        edit = Edit(end_line, end_col - len(node.attr), end_line, end_col, other)
        yield Mutation("", edit, node.attr, other,
                       _ROUNDING_HINT.format(a=node.attr, b=other))
    elif isinstance(node, ast.Name) and node.id in _ROUNDING and \
            isinstance(node.ctx, ast.Load) and node.id in ctx.from_decimal:
        other = _ROUNDING[node.id]
        if other in ctx.from_decimal:
            repl = other
        elif ctx.decimal_module:
            repl = f"{ctx.decimal_module}.{other}"
        else:  # decimal's rounding modes are their own names as strings
            repl = f'"{other}"'
        yield Mutation("", at(ctx, node, repl), node.id, other,
                       _ROUNDING_HINT.format(a=node.id, b=other))
