"""Identifiers: SS202 dunder names, and routing of special builtin names.

Every identifier the parser produced (already NFKC-normalised: `_＿builtins＿＿` arrives as
`__builtins__`) is checked wherever it appears: names, parameters (also of lambdas), function
names, import aliases, keyword arguments, `except ... as`, match captures.

SS202 refuses names starting with a double underscore (dunders such as `__builtins__`,
`__name__`, `__class__`, and mangling-style `__x`). Single-underscore names (`_`, `_total`,
private helpers) stay allowed: a *name* reaches only what the step itself bound; it is
private *attributes* (SS201) that reach other objects' internals.
"""

from __future__ import annotations

import _ast as ast  # node classes only: `ast` itself imports enum, contextlib, ...

from stepsmith.runner.validator import policy
from stepsmith.runner.validator.checks import introspection, strings

_FORBIDDEN = policy.FORBIDDEN_BUILTINS
_ATTR_BUILTINS = policy.ATTRIBUTE_BUILTINS
_SPECIAL = _FORBIDDEN | _ATTR_BUILTINS | {"type"}
_WATCHED = policy.SHADOW_WATCHED
_ADDRESS = policy.ADDRESS_BUILTINS


def _defer_address(ctx, node: ast.Name) -> None:
    """SS503, unless the statement binds the name itself (then it is the step's own value)."""
    name = node.id
    span = ctx.pos.node_span(node)
    ctx.deferred.append((name, False, lambda: ctx.report(
        "SS503", span, f"`{name}()` is a memory address, which differs between runs; "
        "use a value from the data (e.g. `row[\"id\"]`)")))


def check_identifier(ctx, name: str, span_of) -> None:
    """`span_of()` gives the identifier's span; called only when reporting."""
    if name in _FORBIDDEN:
        introspection.report_forbidden(ctx, name, span_of())
    elif name[:2] == "__":
        ctx.report("SS202", span_of(), f"dunder name `{name}` is not allowed")


def check_name(ctx, node: ast.Name) -> None:
    name = node.id
    if name in _WATCHED:
        if node.ctx.__class__ is ast.Load:
            if name in _ADDRESS:
                _defer_address(ctx, node)
        else:
            ctx.bind(name)
    if name in _SPECIAL:
        if name in _FORBIDDEN:
            introspection.report_forbidden(ctx, name, ctx.pos.node_span(node))
        elif name == "type":
            introspection.check_type_name(ctx, node)
        else:
            strings.check_attribute_builtin_name(ctx, node)
    elif name[:2] == "__":
        ctx.report("SS202", ctx.pos.node_span(node), f"dunder name `{name}` is not allowed")


def check_arg(ctx, node: ast.arg) -> None:
    name = node.arg
    if name in _WATCHED:
        ctx.bind(name)
    if name in _FORBIDDEN or name[:2] == "__":
        check_identifier(ctx, name, lambda: ctx.pos.name_in_node(node, name))


def check_keyword(ctx, node: ast.keyword) -> None:
    name = node.arg
    if name is not None and name[:2] == "__":
        ctx.report("SS202", ctx.pos.name_in_node(node, name),
                   f"dunder keyword argument `{name}` is not allowed")


def check_def_name(ctx, node) -> None:
    name = node.name
    if name in _WATCHED:
        ctx.bind(name)
    if name in _FORBIDDEN or name[:2] == "__":
        check_identifier(ctx, name, lambda: ctx.pos.name_in_node(node, name))


def check_except_name(ctx, node: ast.ExceptHandler) -> None:
    name = node.name
    if name in _WATCHED:
        ctx.bind(name)
    if name and (name in _FORBIDDEN or name[:2] == "__"):
        check_identifier(ctx, name, lambda: ctx.pos.name_in_node(node, name, last=True))


def check_capture(ctx, node) -> None:
    """`case x`, `case [*rest]`, `case ... as x`."""
    name = node.name
    if name in _WATCHED:
        ctx.bind(name)
    if name and (name in _FORBIDDEN or name[:2] == "__"):
        check_identifier(ctx, name, lambda: ctx.pos.trailing_name_span(node))


def check_mapping_rest(ctx, node: ast.MatchMapping) -> None:
    """`case {**rest}`. (Mapping *keys* are item lookups, not attributes, so stay allowed.)"""
    name = node.rest
    if name in _WATCHED:
        ctx.bind(name)
    if name and (name in _FORBIDDEN or name[:2] == "__"):
        def span():
            end_lineno = node.end_lineno
            end = ctx.pos.char_col(end_lineno, node.end_col_offset)
            return (ctx.pos.find_name(end_lineno, 0, end, name, last=True)
                    or ctx.pos.first_line_span(node))
        check_identifier(ctx, name, span)


HANDLERS = {
    ast.Name: check_name,
    ast.arg: check_arg,
    ast.keyword: check_keyword,
    ast.FunctionDef: check_def_name,
    ast.AsyncFunctionDef: check_def_name,
    ast.ClassDef: check_def_name,
    ast.ExceptHandler: check_except_name,
    ast.MatchAs: check_capture,
    ast.MatchStar: check_capture,
    ast.MatchMapping: check_mapping_rest,
}
