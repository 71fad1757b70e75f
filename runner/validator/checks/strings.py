"""Attribute access through strings.

SS203 `getattr`/`setattr`/`delattr`/`hasattr` with a non-literal name, or the builtin used
      other than by a direct call (`g = getattr`, `map(getattr, ...)`).
SS204 the same builtins with a literal name the attribute rules refuse (`getattr(x, "_y")`,
      `getattr(g, "gi_frame")`), or naming `format`/`format_map`/`samples`/`now`/`today`/
      `utcnow` (which would dodge the shape-based SS205/SS206/SS501/SS502).
SS205 a literal format string whose field names traverse to a refused attribute
      (`"{0.__class__}".format(x)`, also in nested specs `"{0:{1.__class__}}"`), or that does
      not parse. Index lookups (`{0[key]}`) are item access and stay allowed, as does plain
      public attribute access (`"{0.year}"`).
SS206 `.format`/`.format_map` on anything but a string literal (or `str.format(<literal>, ...)`):
      a format string built at run time cannot be checked. f-strings and `%` formatting have
      no string-level attribute traversal and remain the ways to format computed values.
"""

from __future__ import annotations

import _ast as ast  # node classes only: `ast` itself imports enum, contextlib, ...

from stepsmith.runner.validator import policy
from stepsmith.runner.validator.checks.attributes import attribute_refusal

_FORMAT = policy.FORMAT_METHODS
_INDIRECT = policy.FORMAT_METHODS | policy.SAMPLING_METHODS | policy.CLOCK_METHODS


def check_attribute_builtin_call(ctx, node: ast.Call, name: str) -> None:
    """`getattr(obj, "name", ...)` and friends; `node.func` is the builtin's Name."""
    ctx.approved.add(id(node.func))
    args = node.args
    if len(args) < 2 or any(isinstance(a, ast.Starred) for a in args[:2]):
        ctx.report("SS203", ctx.pos.node_span(node),
                   f"`{name}` needs the attribute name as a string literal second argument")
        return
    key = args[1]
    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        ctx.report("SS203", ctx.pos.node_span(key),
                   f"`{name}` with a computed attribute name is not allowed; use a literal")
        return
    attr = key.value
    refusal = attribute_refusal(attr) if attr else ("SS204", "an empty attribute name")
    if refusal is not None:
        ctx.report("SS204", ctx.pos.node_span(key),
                   f"`{name}` naming {refusal[1]} is not allowed")
    elif attr in _INDIRECT:
        ctx.report("SS204", ctx.pos.node_span(key),
                   f"`{name}` naming `{attr}` is not allowed; use `.{attr}(...)` directly")


def check_attribute_builtin_name(ctx, node: ast.Name) -> None:
    if id(node) not in ctx.approved:
        ctx.report("SS203", ctx.pos.node_span(node),
                   f"`{node.id}` may only be called directly, with a literal attribute name")


def format_refusal(fmt: str) -> str | None:
    """Why the format string `fmt` is refused, or None. Walks nested format specs too."""
    # the parser behind str.format itself (same grammar, same errors); imported here, as
    # only code with a `.format` needs it (the validator runs in every sandbox)
    import _string

    todo = [(fmt, 0)]
    while todo:
        text, depth = todo.pop()
        try:
            for _literal, field_name, spec, _conversion in _string.formatter_parser(text):
                if field_name is None:
                    continue
                _first, rest = _string.formatter_field_name_split(field_name)
                for is_attr, key in rest:
                    if is_attr:
                        refusal = attribute_refusal(key)
                        if refusal is not None:
                            return f"field `{{{field_name}}}` reaches {refusal[1]}"
                if spec and "{" in spec and depth < 4:
                    todo.append((spec, depth + 1))
        except ValueError as exc:
            return f"the format string does not parse ({exc})"
    return None


def check_format_literal(ctx, literal: ast.Constant, method: str) -> None:
    why = format_refusal(literal.value)
    if why is not None:
        ctx.report("SS205", ctx.pos.node_span(literal), f"`.{method}()`: {why}")


def check_format_call(ctx, node: ast.Call, func: ast.Attribute) -> None:
    """`str.format("{...}", x)` / `str.format_map("{...}", m)`: check the literal, approve."""
    value = func.value
    if isinstance(value, ast.Name) and value.id == "str" and node.args:
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            ctx.approved.add(id(func))
            check_format_literal(ctx, first, func.attr)
            # approved as the builtin `str`; a `str` the function binds itself (a parameter
            # fed from the inputs, `str = "{1.__class__}"`) would format its own string
            span = ctx.pos.trailing_name_span(func)
            method = func.attr
            ctx.deferred.append(("str", True, lambda: ctx.report(
                "SS206", span, f"`str.{method}(...)`: `str` is rebound in this function, so "
                "the format string is not the literal; use an f-string")))


def check_format_attribute(ctx, node: ast.Attribute) -> None:
    value = node.value
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        check_format_literal(ctx, value, node.attr)
    elif id(node) not in ctx.approved:
        ctx.report("SS206", ctx.pos.trailing_name_span(node),
                   f"`.{node.attr}()` on a string that is not a literal cannot be checked; "
                   "use an f-string or a literal format string")


def check_attribute(ctx, node: ast.Attribute) -> None:
    if node.attr in _FORMAT:
        check_format_attribute(ctx, node)


HANDLERS = {ast.Attribute: check_attribute}
