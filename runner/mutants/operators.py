"""The mutation operators: small changes that matter in business code.

Each operator is one entry of `OPERATORS`: its name (the `operator` of a mutant record), what it
changes (the guide's table), an example (before, after) that tests/mutants check, and `find`,
which proposes the mutations of one AST node. A mutation is one text edit (runner/mutants/
apply.py) with the original and replacement as an author reads them, and a hint: what the
author can record so that a fixture notices.

Only a function's body is mutated (never its defaults or the module's top level, which run on
import whatever the fixture), never inside an f-string (its parts have no reliable positions
before Python 3.12), never a docstring.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from stepsmith.runner.mutants.apply import Edit
from stepsmith.runner.mutants.decimals import decimal, quantize, rounding
from stepsmith.runner.mutants.mutation import (
    Context,
    Mutation,
    Operator,
    at,
    call_name,
    end,
    start,
    token_edit,
)

__all__ = ["BY_NAME", "OPERATORS", "Context", "Mutation", "Operator"]


# ------------------------------------------------------------------ comparisons
_BOUNDARY = {ast.Lt: ("<", "<="), ast.LtE: ("<=", "<"), ast.Gt: (">", ">="),
             ast.GtE: (">=", ">")}
_EQUALITY = {ast.Eq: ("==", "!="), ast.NotEq: ("!=", "==")}


def _compare(table: dict, hint: Callable[[str, str, str, str], str]):
    def find(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
        if not isinstance(node, ast.Compare):
            return
        operands = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            pair = table.get(type(op))
            if pair is None:
                continue
            left, right = operands[i], operands[i + 1]
            tok = ctx.source.token_between(end(ctx, left), start(ctx, right), (pair[0],))
            if tok is None:
                continue
            a, b = ctx.source.short(left), ctx.source.short(right)
            yield Mutation("", token_edit(tok, pair[1]), pair[0], pair[1],
                           hint(a, b, pair[0], pair[1]))
    return find


def _boundary_hint(a: str, b: str, orig: str, repl: str) -> str:
    return f"no fixture has {a} equal to {b}: record one at the boundary"


def _equality_hint(a: str, b: str, orig: str, repl: str) -> str:
    return (f"no fixture notices if `{a} {orig} {b}` becomes `{a} {repl} {b}`: record one "
            f"where {a} equals {b} and one where it does not")


# ------------------------------------------------------------------ arithmetic
_ARITH = {ast.Add: ("+", "-"), ast.Sub: ("-", "+"), ast.Mult: ("*", "/"), ast.Div: ("/", "*"),
          ast.FloorDiv: ("//", "%"), ast.Mod: ("%", "//")}


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant)
                                               and isinstance(node.value, (str, bytes)))


def _arithmetic(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if isinstance(node, ast.BinOp):
        pair = _ARITH.get(type(node.op))
        # text joined or formatted ("a" + b, "%s" % x) is not arithmetic
        if pair is None or _is_text(node.left) or _is_text(node.right):
            return
        tok = ctx.source.token_between(end(ctx, node.left), start(ctx, node.right),
                                       (pair[0],))
        what = ctx.source.short(node)
    elif isinstance(node, ast.AugAssign):
        pair = _ARITH.get(type(node.op))
        if pair is None or _is_text(node.value):
            return
        pair = (pair[0] + "=", pair[1] + "=")
        tok = ctx.source.token_between(end(ctx, node.target), start(ctx, node.value),
                                       (pair[0],))
        what = ctx.source.short(node)
    else:
        return
    if tok is not None:
        yield Mutation("", token_edit(tok, pair[1]), pair[0], pair[1],
                       f"no fixture notices if `{pair[0]}` becomes `{pair[1]}` in `{what}`: "
                       "record one whose result depends on it")


# ------------------------------------------------------------------ booleans
def _boolean(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if isinstance(node, ast.BoolOp):
        word, other = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        for a, b in zip(node.values, node.values[1:]):
            tok = ctx.source.token_between(end(ctx, a), start(ctx, b), (word,))
            if tok is not None:
                yield Mutation("", token_edit(tok, other), word, other,
                               f"no fixture notices if `{word}` becomes `{other}` between "
                               f"`{ctx.source.short(a, 24)}` and `{ctx.source.short(b, 24)}`: "
                               "record one where only one of them holds")
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        other = "False" if node.value else "True"
        yield Mutation("", at(ctx, node, other), str(node.value), other,
                       f"no fixture notices if `{node.value}` becomes `{other}` here")


def _not(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return
    begin = start(ctx, node)
    tok = ctx.source.token_between(begin, start(ctx, node.operand), ("not",))
    nxt = ctx.source.next_token(tok.end) if tok is not None else None
    if tok is None or nxt is None or nxt.start[0] != tok.start[0]:
        return
    edit = Edit(tok.start[0], tok.start[1], nxt.start[0], nxt.start[1], "")
    operand = ctx.source.short(node.operand)
    yield Mutation("", edit, f"not {operand}", operand,
                   f"no fixture notices if `not` is dropped from `not {operand}`: record one "
                   f"for each value of `{operand}`")


# ------------------------------------------------------------------ constants
def _in_slice(ctx: Context, node: ast.AST) -> bool:
    p = ctx.parent(node)
    if isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.USub):
        node, p = p, ctx.parent(p)
    return isinstance(p, ast.Slice) and node in (p.lower, p.upper)


def _number(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if not (isinstance(node, ast.Constant) and type(node.value) in (int, float)):
        return
    if _in_slice(ctx, node):
        return  # the slice operator moves it
    text = ctx.source.text_of(node)
    for delta in (1, -1):
        new = node.value + delta
        if new < 0:  # `-` is an operator of its own: the literal stays a literal
            continue
        repl = repr(new)
        yield Mutation("", at(ctx, node, repl), text, repl,
                       f"no fixture notices if {text} becomes {repl} here: record one where "
                       "this value decides the result")


def _string(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value):
        return
    p = ctx.parent(node)
    if isinstance(p, ast.Expr):  # a docstring or a bare string
        return
    if isinstance(p, ast.Dict) and node in p.keys:  # a record's field name
        return
    if isinstance(p, ast.Subscript) and p.slice is node:  # row["amount"]
        return
    if isinstance(p, ast.Call) and (p.args[:1] == [node] or call_name(p) == "Decimal"):
        return  # a key, a name, a format or a number: not the value under test
    if isinstance(p, ast.Compare):  # status == "open": the equality operator's business
        return
    text = ctx.source.short(node)
    q = ctx.source.text_of(node)[:1]
    empty = q + q if q in ("'", '"') else '""'
    yield Mutation("", at(ctx, node, empty), text, empty,
                   f"no fixture notices if {text} becomes an empty string: record one that "
                   "checks this text")


# ------------------------------------------------------------------ rounding and choices
def _min_max(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("min", "max"):
        other = "max" if node.func.id == "min" else "min"
        yield Mutation("", at(ctx, node.func, other), node.func.id, other,
                       f"no fixture notices if {node.func.id}() becomes {other}(): record one "
                       "whose values differ")


def _sorted(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if not isinstance(node, ast.Call):
        return
    f = node.func
    if not ((isinstance(f, ast.Name) and f.id == "sorted")
            or (isinstance(f, ast.Attribute) and f.attr == "sort")):
        return
    hint = "no fixture notices the order reversed: record one with several items out of order"
    for kw in node.keywords:
        if kw.arg == "reverse":
            v = kw.value
            if isinstance(v, ast.Constant) and isinstance(v.value, bool):
                other = str(not v.value)
                yield Mutation("", at(ctx, v, other), f"reverse={v.value}",
                               f"reverse={other}", hint)
            else:
                text = ctx.source.text_of(v)
                yield Mutation("", at(ctx, v, f"not ({text})"), f"reverse={text}",
                               f"reverse=not ({text})", hint)
            return
    *_, end_line, end_col = ctx.source.span(node)
    close = (end_line, end_col - 1)
    before = ctx.source.previous_token(close)
    sep = "" if before is None or before.string in ("(", ",") else ", "
    yield Mutation("", Edit(*close, *close, f"{sep}reverse=True"), "", "reverse=True", hint)


# ------------------------------------------------------------------ statements
def _return(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if not isinstance(node, ast.Return) or node.value is None:
        return
    v = node.value
    if isinstance(v, ast.Constant) and v.value is None:
        return
    text = ctx.source.short(v)
    yield Mutation("", at(ctx, v, "None"), f"return {text}", "return None",
                   "no fixture checks the value returned here: record one that reaches this "
                   "return")


def _if(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if not isinstance(node, (ast.If, ast.IfExp)):
        return
    test = node.test
    if isinstance(test, ast.Constant):
        return
    text = ctx.source.short(test)
    yield Mutation("", at(ctx, test, "True"), text, "True",
                   f"no fixture notices if this condition always holds: record one where "
                   f"`{text}` is false")
    yield Mutation("", at(ctx, test, "False"), text, "False",
                   f"no fixture notices if this condition never holds: record one where "
                   f"`{text}` is true")


def _emit(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return
    f = node.value.func
    if not (isinstance(f, ast.Attribute) and f.attr == "emit" and isinstance(f.value, ast.Name)
            and f.value.id == "effects"):
        return
    name = node.value.args[0] if node.value.args else None
    label = repr(name.value) if isinstance(name, ast.Constant) else "an effect"
    yield Mutation("", at(ctx, node, "pass"), f"effects.emit({label}, ...)", "pass",
                   f"no fixture expects the {label} effect emitted here: record one whose "
                   "expected effects include it")


def _slice(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if not isinstance(node, ast.Slice):
        return
    for bound in (node.lower, node.upper):
        if bound is None:
            continue
        text = ctx.source.text_of(bound)
        if isinstance(bound, ast.Constant) and type(bound.value) is int:
            options = [repr(bound.value + 1)] + ([repr(bound.value - 1)] if bound.value else [])
        else:
            simple = isinstance(bound, (ast.Name, ast.Attribute, ast.Call, ast.Subscript,
                                        ast.Constant))
            base = text if simple else f"({text})"
            options = [f"{base} + 1", f"{base} - 1"]
        for repl in options:
            yield Mutation("", at(ctx, bound, repl), text, repl,
                           f"no fixture notices if the slice bound {text} becomes {repl}: "
                           "record one with more items than the slice keeps")


def _named(name: str, find):
    def named(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
        for m in find(ctx, node):
            yield Mutation(name, m.edit, m.original, m.replacement, m.hint)
    return named


def _op(name: str, changes: str, example: tuple[str, str], find) -> Operator:
    return Operator(name, changes, example, _named(name, find))


OPERATORS: tuple[Operator, ...] = (
    _op("comparison", "a boundary: < and <= swapped, > and >= swapped",
        ("ok = amount <= limit", "ok = amount < limit"), _compare(_BOUNDARY, _boundary_hint)),
    _op("equality", "== and != swapped",
        ("ok = status == 'open'", "ok = status != 'open'"), _compare(_EQUALITY, _equality_hint)),
    _op("arithmetic", "+ and -, * and /, // and % swapped (also in +=, -=, ...)",
        ("total = net + tax", "total = net - tax"), _arithmetic),
    _op("boolean", "and and or swapped; True and False swapped",
        ("ok = paid and due", "ok = paid or due"), _boolean),
    _op("not", "`not` dropped", ("ok = not late", "ok = late"), _not),
    _op("number", "a number made one more and one less",
        ("days = 30", "days = 31"), _number),
    _op("decimal", 'a Decimal("...") amount or tolerance moved by one unit in its last place',
        ('limit = Decimal("0.01")', 'limit = Decimal("0.02")'), decimal),
    _op("string", "a text value made empty", ("tone = 'urgent'", "tone = ''"), _string),
    _op("rounding", "Decimal rounding modes: ROUND_HALF_UP and ROUND_HALF_EVEN swapped (and "
        "UP/DOWN, CEILING/FLOOR)", ("mode = decimal.ROUND_HALF_UP",
                                    "mode = decimal.ROUND_HALF_EVEN"), rounding),
    _op("quantize", "quantize() to one place fewer and one more",
        ('x = a.quantize(Decimal("0.01"))', 'x = a.quantize(Decimal("0.1"))'), quantize),
    _op("min-max", "min() and max() swapped", ("x = min(a, b)", "x = max(a, b)"), _min_max),
    _op("sorted", "sorted(...)/.sort(...) reversed",
        ("xs = sorted(ys)", "xs = sorted(ys, reverse=True)"), _sorted),
    _op("return", "a returned value replaced by None", ("return total", "return None"),
        _return),
    _op("if", "an if (or a conditional expression) forced true and forced false",
        ("if late:\n    n += 1", "if True:\n    n += 1"), _if),
    _op("emit", "an effects.emit(...) removed",
        ("effects.emit('send', p)", "pass"), _emit),
    _op("slice", "a slice bound moved by one",
        ("top = rows[:3]", "top = rows[:4]"), _slice),
)

BY_NAME = {op.name: op for op in OPERATORS}
