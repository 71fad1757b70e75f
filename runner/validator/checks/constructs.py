"""SS401 classes, SS402 async code, SS403 global/nonlocal, SS404 decorators,
SS405 top-level statements other than defs, imports and docstrings."""

from __future__ import annotations

import _ast as ast  # node classes only: `ast` itself imports enum, contextlib, ...

from stepsmith.runner.validator import fix_edits


def check_class(ctx, node: ast.ClassDef) -> None:
    ctx.report("SS401", ctx.pos.first_line_span(node),
               f"class `{node.name}` is not allowed; steps are plain functions")
    check_decorators(ctx, node)


def check_async_def(ctx, node: ast.AsyncFunctionDef) -> None:
    ctx.report("SS402", ctx.pos.first_line_span(node),
               f"`async def {node.name}` is not allowed; steps are synchronous")
    check_decorators(ctx, node)


def _async(what: str):
    def check(ctx, node) -> None:
        ctx.report("SS402", ctx.pos.first_line_span(node), f"`{what}` is not allowed")
    return check


def check_comprehension(ctx, node) -> None:
    for gen in node.generators:
        if gen.is_async:
            ctx.report("SS402", ctx.pos.first_line_span(node),
                       "an async comprehension (`async for`) is not allowed")
            return


def check_global(ctx, node) -> None:
    keyword = "global" if isinstance(node, ast.Global) else "nonlocal"
    ctx.report("SS403", ctx.pos.node_span(node), f"`{keyword}` is not allowed")


def check_decorators(ctx, node) -> None:
    for deco in node.decorator_list:
        ctx.report("SS404", ctx.pos.node_span(deco),
                   f"decorator on `{node.name}` is not allowed; wiring belongs in the manifest",
                   data=fix_edits.remove_decorator(ctx, deco))


_TOP_LEVEL_OK = (ast.FunctionDef, ast.Import, ast.ImportFrom)
# Reported by their own rules; SS405 would only repeat them.
_TOP_LEVEL_OWN_RULE = (ast.ClassDef, ast.AsyncFunctionDef)


def is_docstring(stmt) -> bool:
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


_KINDS = {
    ast.Expr: "expression", ast.Assign: "assignment", ast.AnnAssign: "assignment",
    ast.AugAssign: "assignment", ast.If: "if", ast.For: "for", ast.While: "while",
    ast.Try: "try", ast.With: "with", ast.Match: "match", ast.Delete: "del",
    ast.Raise: "raise", ast.Assert: "assert", ast.Pass: "pass",
}


def check_top_level(ctx, stmt) -> None:
    """Called by the engine for each statement of the module body."""
    if isinstance(stmt, _TOP_LEVEL_OK + _TOP_LEVEL_OWN_RULE) or is_docstring(stmt):
        return
    kind = _KINDS.get(type(stmt), type(stmt).__name__.lower())
    fix = ("move it into the function that uses it (a setting can be a literal input in the "
           "manifest)" if kind == "assignment" else "move it into a function")
    ctx.report("SS405", ctx.pos.first_line_span(stmt),
               f"top-level `{kind}` statement is not allowed; only functions, imports and "
               f"docstrings: {fix}")


HANDLERS = {
    ast.ClassDef: check_class,
    ast.AsyncFunctionDef: check_async_def,
    ast.Await: _async("await"),
    ast.AsyncFor: _async("async for"),
    ast.AsyncWith: _async("async with"),
    ast.ListComp: check_comprehension,
    ast.SetComp: check_comprehension,
    ast.DictComp: check_comprehension,
    ast.GeneratorExp: check_comprehension,
    ast.Global: check_global,
    ast.Nonlocal: check_global,
    ast.FunctionDef: check_decorators,
}
