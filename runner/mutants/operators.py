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
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from stepsmith.runner.mutants.apply import Edit, Source


@dataclass(frozen=True)
class Mutation:
    operator: str
    edit: Edit
    original: str
    replacement: str
    hint: str  # what to record so that a fixture notices


@dataclass
class Context:
    """What the operators know about the file: its text and the names `decimal` gives."""

    source: Source
    parents: dict = field(default_factory=dict)  # node -> parent node
    decimal_module: str | None = None  # `import decimal [as m]`: the name it is bound to
    from_decimal: frozenset[str] = frozenset()  # names bound by `from decimal import ...`

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(node)


@dataclass(frozen=True)
class Operator:
    name: str
    changes: str
    example: tuple[str, str]  # (before, after): one line of a step body
    find: Callable[[Context, ast.AST], Iterator[Mutation]]


def _at(ctx: Context, node: ast.AST, text: str) -> Edit:
    return Edit(*ctx.source.span(node), text)


def _token_edit(tok, text: str) -> Edit:
    return Edit(tok.start[0], tok.start[1], tok.end[0], tok.end[1], text)


def _end(ctx: Context, node: ast.AST) -> tuple[int, int]:
    s = ctx.source.span(node)
    return s[2], s[3]


def _start(ctx: Context, node: ast.AST) -> tuple[int, int]:
    s = ctx.source.span(node)
    return s[0], s[1]


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
            tok = ctx.source.token_between(_end(ctx, left), _start(ctx, right), (pair[0],))
            if tok is None:
                continue
            a, b = ctx.source.short(left), ctx.source.short(right)
            yield Mutation("", _token_edit(tok, pair[1]), pair[0], pair[1],
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
        tok = ctx.source.token_between(_end(ctx, node.left), _start(ctx, node.right),
                                       (pair[0],))
        what = ctx.source.short(node)
    elif isinstance(node, ast.AugAssign):
        pair = _ARITH.get(type(node.op))
        if pair is None or _is_text(node.value):
            return
        pair = (pair[0] + "=", pair[1] + "=")
        tok = ctx.source.token_between(_end(ctx, node.target), _start(ctx, node.value),
                                       (pair[0],))
        what = ctx.source.short(node)
    else:
        return
    if tok is not None:
        yield Mutation("", _token_edit(tok, pair[1]), pair[0], pair[1],
                       f"no fixture notices if `{pair[0]}` becomes `{pair[1]}` in `{what}`: "
                       "record one whose result depends on it")


# ------------------------------------------------------------------ booleans
def _boolean(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if isinstance(node, ast.BoolOp):
        word, other = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        for a, b in zip(node.values, node.values[1:]):
            tok = ctx.source.token_between(_end(ctx, a), _start(ctx, b), (word,))
            if tok is not None:
                yield Mutation("", _token_edit(tok, other), word, other,
                               f"no fixture notices if `{word}` becomes `{other}` between "
                               f"`{ctx.source.short(a, 24)}` and `{ctx.source.short(b, 24)}`: "
                               "record one where only one of them holds")
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        other = "False" if node.value else "True"
        yield Mutation("", _at(ctx, node, other), str(node.value), other,
                       f"no fixture notices if `{node.value}` becomes `{other}` here")


def _not(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return
    start = _start(ctx, node)
    tok = ctx.source.token_between(start, _start(ctx, node.operand), ("not",))
    nxt = ctx.source.next_token(tok.end) if tok is not None else None
    if tok is None or nxt is None or nxt.start[0] != tok.start[0]:
        return
    edit = Edit(tok.start[0], tok.start[1], nxt.start[0], nxt.start[1], "")
    operand = ctx.source.short(node.operand)
    yield Mutation("", edit, f"not {operand}", operand,
                   f"no fixture notices if `not` is dropped from `not {operand}`: record one "
                   f"for each value of `{operand}`")


# ------------------------------------------------------------------ constants
def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute):
            return f.attr
    return None


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
        yield Mutation("", _at(ctx, node, repl), text, repl,
                       f"no fixture notices if {text} becomes {repl} here: record one where "
                       "this value decides the result")


def _decimal_literal(ctx: Context, node: ast.AST) -> tuple[ast.Constant, Decimal] | None:
    """The string argument of `Decimal("...")` and its value, when it is a finite number."""
    if _call_name(node) != "Decimal" or len(node.args) != 1 or node.keywords:
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
    return _call_name(p) == "quantize" and bool(p.args) and p.args[0] is node


def _decimal(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    found = _decimal_literal(ctx, node)
    if found is None or _is_quantize_arg(ctx, node):
        return
    arg, value = found
    step = Decimal((0, (1,), value.as_tuple().exponent))
    for new in (value + step, value - step):
        repl = _quoted(ctx, arg, str(new))
        orig = ctx.source.text_of(arg)
        yield Mutation("", _at(ctx, arg, repl), f"Decimal({orig})", f"Decimal({repl})",
                       f"no fixture notices if Decimal({orig}) becomes Decimal({repl}): record "
                       "one at exactly that amount")


def _quantize(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    found = _decimal_literal(ctx, node)
    if found is None or not _is_quantize_arg(ctx, node):
        return
    arg, value = found
    exp = value.as_tuple().exponent
    for new_exp, what in ((exp + 1, "one place fewer"), (exp - 1, "one place more")):
        repl = _quoted(ctx, arg, str(Decimal((0, (1,), new_exp))))
        orig = ctx.source.text_of(arg)
        yield Mutation("", _at(ctx, arg, repl), f"quantize(Decimal({orig}))",
                       f"quantize(Decimal({repl}))",
                       f"no fixture notices rounding to {what}: record one with more "
                       "decimal places than the result keeps")


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
    if isinstance(p, ast.Call) and (p.args[:1] == [node] or _call_name(p) == "Decimal"):
        return  # a key, a name, a format or a number: not the value under test
    if isinstance(p, ast.Compare):  # status == "open": the equality operator's business
        return
    text = ctx.source.short(node)
    q = ctx.source.text_of(node)[:1]
    empty = q + q if q in ("'", '"') else '""'
    yield Mutation("", _at(ctx, node, empty), text, empty,
                   f"no fixture notices if {text} becomes an empty string: record one that "
                   "checks this text")


# ------------------------------------------------------------------ rounding and choices
_ROUNDING = {"ROUND_HALF_UP": "ROUND_HALF_EVEN", "ROUND_HALF_EVEN": "ROUND_HALF_UP",
             "ROUND_HALF_DOWN": "ROUND_HALF_UP", "ROUND_UP": "ROUND_DOWN",
             "ROUND_DOWN": "ROUND_UP", "ROUND_CEILING": "ROUND_FLOOR",
             "ROUND_FLOOR": "ROUND_CEILING", "ROUND_05UP": "ROUND_DOWN"}
_ROUNDING_HINT = ("no fixture has a value where {a} and {b} round differently: record one with "
                  "an amount exactly halfway (e.g. 2.675 to cents)")


def _rounding(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
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
        yield Mutation("", _at(ctx, node, repl), node.id, other,
                       _ROUNDING_HINT.format(a=node.id, b=other))


def _min_max(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("min", "max"):
        other = "max" if node.func.id == "min" else "min"
        yield Mutation("", _at(ctx, node.func, other), node.func.id, other,
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
                yield Mutation("", _at(ctx, v, other), f"reverse={v.value}",
                               f"reverse={other}", hint)
            else:
                text = ctx.source.text_of(v)
                yield Mutation("", _at(ctx, v, f"not ({text})"), f"reverse={text}",
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
    yield Mutation("", _at(ctx, v, "None"), f"return {text}", "return None",
                   "no fixture checks the value returned here: record one that reaches this "
                   "return")


def _if(ctx: Context, node: ast.AST) -> Iterator[Mutation]:
    if not isinstance(node, (ast.If, ast.IfExp)):
        return
    test = node.test
    if isinstance(test, ast.Constant):
        return
    text = ctx.source.short(test)
    yield Mutation("", _at(ctx, test, "True"), text, "True",
                   f"no fixture notices if this condition always holds: record one where "
                   f"`{text}` is false")
    yield Mutation("", _at(ctx, test, "False"), text, "False",
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
    yield Mutation("", _at(ctx, node, "pass"), f"effects.emit({label}, ...)", "pass",
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
            yield Mutation("", _at(ctx, bound, repl), text, repl,
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
        ('limit = Decimal("0.01")', 'limit = Decimal("0.02")'), _decimal),
    _op("string", "a text value made empty", ("tone = 'urgent'", "tone = ''"), _string),
    _op("rounding", "Decimal rounding modes: ROUND_HALF_UP and ROUND_HALF_EVEN swapped (and "
        "UP/DOWN, CEILING/FLOOR)", ("mode = decimal.ROUND_HALF_UP",
                                    "mode = decimal.ROUND_HALF_EVEN"), _rounding),
    _op("quantize", "quantize() to one place fewer and one more",
        ('x = a.quantize(Decimal("0.01"))', 'x = a.quantize(Decimal("0.1"))'), _quantize),
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
