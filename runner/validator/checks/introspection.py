"""SS301 forbidden builtins and SS302 dynamic `type`.

SS301: any use of the name (call, reference, binding, parameter, import alias) of eval, exec,
compile, __import__, open, globals, locals, vars, dir, breakpoint, input, help, memoryview.
Refusing the bare name, not just calls, closes `f = eval; f(s)` and `[exec][0](s)`.

SS302: `type` is allowed only as `type(x)` with one argument directly as an operand of a
comparison (`type(x) is dict`, `type(x) in (int, float)`): three-argument `type` creates a
class, and `type(cls)` *is* `type`, so a one-argument call whose result escapes
(`type(type(1))("C", (), ns)`) would reopen it. `isinstance` covers everything else.
"""

from __future__ import annotations

import _ast as ast  # node classes only: `ast` itself imports enum, contextlib, ...

from stepsmith.runner.validator import policy

FORBIDDEN = policy.FORBIDDEN_BUILTINS


def report_forbidden(ctx, name: str, span) -> None:
    ctx.report("SS301", span, f"`{name}` is not allowed in step code")


def _plain_type_call(node) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "type"
        and len(node.args) == 1
        and not isinstance(node.args[0], ast.Starred)
        and not node.keywords
    )


def check_compare(ctx, node: ast.Compare) -> None:
    """Approve `type(x)` calls that are operands of this comparison."""
    if _plain_type_call(node.left):
        ctx.approved.add(id(node.left))
    for operand in node.comparators:
        if _plain_type_call(operand):
            ctx.approved.add(id(operand))


def check_type_call(ctx, node: ast.Call) -> None:
    ctx.approved.add(id(node.func))  # the Name itself is judged here, not again
    if id(node) in ctx.approved:
        return
    if _plain_type_call(node):
        msg = "`type(x)` is allowed only in a comparison (`type(x) is dict`); use isinstance()"
    else:
        msg = "`type` with more than one argument creates a class and is not allowed"
    ctx.report("SS302", ctx.pos.node_span(node), msg)


def check_type_name(ctx, node: ast.Name) -> None:
    if id(node) in ctx.approved or not isinstance(node.ctx, ast.Load):
        return  # binding a local called `type` (`type = row["type"]`) is harmless
    ctx.report("SS302", ctx.pos.node_span(node),
               "`type` may only be called as `type(x)` in a comparison; use isinstance()")
