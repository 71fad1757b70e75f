"""SS101 module not allowed, SS102 submodule, SS103 relative, SS104 star import,
SS105 network module in a file not used only by `public_egress` steps.

Names imported *from* a module are attribute reads of that module, so they go through the
same attribute rules as `m.name` (`from json import codecs` is SS305, `from re import _parser`
SS201). Aliases go through the identifier rules (`import json as __builtins__` is SS202).
Imports inside functions follow the same rules.
"""

from __future__ import annotations

import _ast as ast  # node classes only: `ast` itself imports enum, contextlib, ...

from stepsmith.runner.validator import fix_edits, policy
from stepsmith.runner.validator.checks.attributes import report_attribute
from stepsmith.runner.validator.checks.names import check_identifier

_ALLOWED = policy.ALLOWED_MODULES
_NETWORK = policy.NETWORK_MODULES
_ALLOWED_LIST = ", ".join(sorted(_ALLOWED))


def _module_refusal(ctx, module: str) -> tuple[str, str] | None:
    """(code, message) when importing dotted `module` is refused."""
    if module in _ALLOWED:
        return None
    if module in _NETWORK:
        if ctx.egress_allowed:
            return None
        return ("SS105", (f"`{module}` may be imported only by code used solely by "
                          "`network: public_egress` steps"))
    top = module.partition(".")[0]
    if top in _ALLOWED or module.startswith(tuple(m + "." for m in _NETWORK)):
        return "SS102", f"submodule `{module}` is not allowed; import `{top}` itself"
    if module == "urllib":
        return "SS101", "`urllib` is not allowed; egress steps import `urllib.request` etc."
    return "SS101", f"module `{module}` is not allowed; steps may import {_ALLOWED_LIST}"


def _check_alias_name(ctx, alias: ast.alias) -> None:
    asname = alias.asname
    if asname:
        check_identifier(ctx, asname, lambda: ctx.pos.name_in_node(alias, asname, last=True))


_WATCHED = policy.SHADOW_WATCHED
_CLOCK_CLASSES = frozenset({"date", "datetime"})


def _note_bindings(ctx, node) -> None:
    """Imports that bind a name the shape-based rules trust (policy.SHADOW_WATCHED).

    `import datetime`, `from datetime import date|datetime` (under any of the two names) are
    what the clock rule expects; any other import bound to `str`, `date` or `datetime`
    rebinds it. Inside a function that is the function's own business (the deferred checks
    see it); at module level it would shadow the name in every function, so it is refused
    here, where it happens."""
    is_from = node.__class__ is ast.ImportFrom
    for alias in node.names:
        name = alias.name
        if name == "*":
            continue
        bound = alias.asname or (name if is_from else name.partition(".")[0])
        if bound not in _WATCHED:
            continue
        if bound in _CLOCK_CLASSES and (
                (not is_from and name == "datetime")
                or (is_from and not node.level and node.module == "datetime"
                    and name in _CLOCK_CLASSES)):
            continue
        if ctx.step is not None:
            ctx.bind(bound)
        elif bound == "str":
            ctx.report("SS206", ctx.pos.name_in_node(alias, bound, last=True),
                       "importing a name as `str` is not allowed: `str.format(...)` is checked "
                       "as the builtin's")
        elif bound in _CLOCK_CLASSES:
            ctx.report("SS502", ctx.pos.name_in_node(alias, bound, last=True),
                       f"importing a name as `{bound}` is not allowed: `{bound}.now()` / "
                       f"`{bound}.today()` are checked as the datetime class's")


def check_import(ctx, node: ast.Import) -> None:
    _note_bindings(ctx, node)
    for alias in node.names:
        refusal = _module_refusal(ctx, alias.name)
        if refusal is not None:
            ctx.report(refusal[0], ctx.pos.node_span(alias), refusal[1],
                       data=fix_edits.remove_import(ctx, node, alias))
        _check_alias_name(ctx, alias)


def check_import_from(ctx, node: ast.ImportFrom) -> None:
    pos = ctx.pos
    _note_bindings(ctx, node)
    if node.level:
        ctx.report("SS103", pos.first_line_span(node),
                   "relative imports are not allowed; a step file stands alone",
                   data=fix_edits.remove_import(ctx, node))
        return
    module = node.module or ""
    if module == "urllib":
        # `from urllib import request` is `import urllib.request`
        for alias in node.names:
            if alias.name == "*":
                ctx.report("SS104", pos.node_span(alias), "star imports are not allowed",
                           data=fix_edits.remove_import(ctx, node, alias))
                continue
            refusal = _module_refusal(ctx, f"urllib.{alias.name}")
            if refusal is not None and refusal[0] == "SS102":
                refusal = ("SS101", f"module `urllib.{alias.name}` is not allowed")
            if refusal is not None:
                ctx.report(refusal[0], pos.node_span(alias), refusal[1],
                           data=fix_edits.remove_import(ctx, node, alias))
            _check_alias_name(ctx, alias)
        return
    refusal = _module_refusal(ctx, module)
    if refusal is not None:
        ctx.report(refusal[0], pos.first_line_span(node), refusal[1],
                   data=fix_edits.remove_import(ctx, node))
        for alias in node.names:
            _check_alias_name(ctx, alias)
        return
    submodules = policy.SUBMODULES.get(module, ())
    for alias in node.names:
        name = alias.name
        span_of = pos.node_span(alias)
        if name == "*":
            ctx.report("SS104", span_of, f"`from {module} import *` is not allowed; name what "
                       "you use", data=fix_edits.remove_import(ctx, node, alias))
        elif name in submodules:
            ctx.report("SS102", pos.name_in_node(alias, name),
                       f"submodule `{module}.{name}` is not allowed",
                       data=fix_edits.remove_import(ctx, node, alias))
        else:
            report_attribute(ctx, name, pos.name_in_node(alias, name))
        _check_alias_name(ctx, alias)


HANDLERS = {
    ast.Import: check_import,
    ast.ImportFrom: check_import_from,
}
