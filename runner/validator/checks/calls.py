"""Calls whose legality depends on their shape: routes to the rule modules.

A Call is visited before its `func`, so the rule judging the call can approve the callee
(`ctx.approved`) and the Name/Attribute handlers then refuse only the *other* uses of the
same builtin or method (aliasing, passing it around).
"""

from __future__ import annotations

import _ast as ast  # node classes only: `ast` itself imports enum, contextlib, ...

from stepsmith.runner.validator import policy
from stepsmith.runner.validator.checks import determinism, introspection, strings

_ATTR_BUILTINS = policy.ATTRIBUTE_BUILTINS
_FORMAT = policy.FORMAT_METHODS
_SAMPLING = policy.SAMPLING_METHODS


def check_call(ctx, node: ast.Call) -> None:
    func = node.func
    cls = func.__class__
    if cls is ast.Name:
        name = func.id
        if name in _ATTR_BUILTINS:
            strings.check_attribute_builtin_call(ctx, node, name)
        elif name == "type":
            introspection.check_type_call(ctx, node)
    elif cls is ast.Attribute:
        attr = func.attr
        if attr in _FORMAT:
            strings.check_format_call(ctx, node, func)
        elif attr in _SAMPLING:
            determinism.check_samples_call(ctx, node, func)


HANDLERS = {
    ast.Call: check_call,
    ast.Compare: introspection.check_compare,
}
