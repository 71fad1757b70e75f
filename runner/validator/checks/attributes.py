"""Attribute names: SS201 private/dunder, SS303 frame/code internals, SS304 `mro`,
SS305 module internals. `attribute_refusal` is shared by every place an attribute name can
appear: `x.name`, `from m import name`, `case C(name=...)`, `getattr(x, "name")` and
`"{0.name}".format(x)`, so all spellings refuse the same names.
"""

from __future__ import annotations

import _ast as ast  # node classes only: `ast` itself imports enum, contextlib, ...

from stepsmith.runner.validator import policy

_PREFIXES = policy.FRAME_PREFIXES
_MRO = policy.MRO_NAMES
_LEAKS = policy.MODULE_LEAK_NAMES
# Methods whose rules judge the *call's shape* (literal receiver, `seed=`, spelled-out
# class): a class pattern binding them (`case str(format=fm)`) hands out the bound method,
# and calling it later dodges the rule, exactly like `getattr(x, "format")` (SS204).
_SHAPE_RULED = {name: "SS206" for name in policy.FORMAT_METHODS}
_SHAPE_RULED.update({name: "SS501" for name in policy.SAMPLING_METHODS})
_SHAPE_RULED.update({name: "SS502" for name in policy.CLOCK_METHODS})


def attribute_refusal(name: str) -> tuple[str, str] | None:
    """(code, reason) when attribute `name` is refused anywhere, else None."""
    if name[:1] == "_":
        kind = "dunder" if name[:2] == "__" else "private"
        return "SS201", f"{kind} attribute `{name}`"
    if name.startswith(_PREFIXES):
        return "SS303", f"frame/code internals attribute `{name}`"
    if name in _MRO:
        return "SS304", f"attribute `{name}` (the real classes behind the facades)"
    if name in _LEAKS:
        return "SS305", f"module-internals attribute `{name}`"
    return None


def report_attribute(ctx, name: str, span) -> bool:
    """Report `name` under its own code if refused; True when it was."""
    refusal = attribute_refusal(name)
    if refusal is None:
        return False
    code, reason = refusal
    ctx.report(code, span, f"{reason} is not allowed")
    return True


def check_attribute(ctx, node: ast.Attribute) -> None:
    attr = node.attr
    if attr[:1] == "_" or attr.startswith(_PREFIXES) or attr in _MRO or attr in _LEAKS:
        report_attribute(ctx, attr, ctx.pos.trailing_name_span(node))


def check_match_class(ctx, node: ast.MatchClass) -> None:
    """`case object(__class__=t)`: keyword names sit in `kwd_attrs` as plain strings, and the
    match statement reads them with getattr at run time."""
    pos = ctx.pos
    for i, name in enumerate(node.kwd_attrs):
        refusal = attribute_refusal(name)
        if refusal is None and name in _SHAPE_RULED:
            refusal = (_SHAPE_RULED[name], f"binding the method `{name}` (its call could not "
                       "be checked)")
        if refusal is None:
            continue
        pattern = node.kwd_patterns[i] if i < len(node.kwd_patterns) else None
        span = None
        if pattern is not None:
            lineno = pattern.lineno
            end = pos.char_col(lineno, pattern.col_offset)
            span = pos.find_name(lineno, 0, end, name, last=True)
        if span is None:
            span = pos.first_line_span(node)
        code, reason = refusal
        ctx.report(code, span, f"{reason} in a class pattern is not allowed")


HANDLERS = {
    ast.Attribute: check_attribute,
    ast.MatchClass: check_match_class,
}
