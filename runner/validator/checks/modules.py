"""SS406: assigning to or deleting an attribute of an imported module, of a name imported from
one, or of any other name the function did not bind itself (`datetime.datetime =
datetime.datetime.min` made every later `datetime.datetime.now()` the real class's method,
past SS502). Also through a plain alias (`d = datetime`, `d.datetime = ...`).

The validator checks each top-level statement on its own (validator/chunks.py caches them), so
a function cannot see the file's imports; it does not need to: a step file's top level holds
only functions and imports (SS405), so a name a function does not bind itself is an import,
another function or a builtin, and none of their attributes is the step's to change.
Inside the sandbox the facades hold too: facade modules and classes refuse attribute
assignment (harness/facades.py).
"""

from __future__ import annotations

import _ast as ast  # node classes only: `ast` itself imports enum, contextlib, ...

from stepsmith.runner.validator import module_names
from stepsmith.runner.validator.checks import versions

_CHAIN = (ast.Attribute, ast.Subscript, ast.Call)
_STATE = "_ss406"


def _root(node) -> str | None:
    while node.__class__ in _CHAIN:
        node = node.func if node.__class__ is ast.Call else node.value
    return node.id if node.__class__ is ast.Name else None


def _state(ctx):
    """(bound names, aliases {name: root}, targets [(root, attr, verb, span)], reads of an
    allowed module's names [(module, attr, span)]) of the current top-level statement,
    resolved once it has been walked."""
    st = ctx.scratch.get(_STATE)
    if st is None:
        st = ctx.scratch[_STATE] = (set(), {}, [], [])
        ctx.deferred.append((None, False, lambda: _resolve(ctx)))
    return st


def note_name(ctx, node: ast.Name) -> None:
    if node.ctx.__class__ is not ast.Load:
        _state(ctx)[0].add(node.id)


def note_arg(ctx, node: ast.arg) -> None:
    _state(ctx)[0].add(node.arg)


def note_handler(ctx, node) -> None:
    if node.name:
        _state(ctx)[0].add(node.name)


def note_capture(ctx, node) -> None:
    name = getattr(node, "name", None) or getattr(node, "rest", None)
    if name:
        _state(ctx)[0].add(name)


def note_alias(ctx, node: ast.Assign) -> None:
    """`d = datetime` / `D = datetime.datetime`: `d` stands for what it names."""
    value = node.value
    if value.__class__ in (ast.Name, ast.Attribute):
        root = _root(value)
        if root is not None:
            for target in node.targets:
                if target.__class__ is ast.Name:
                    _state(ctx)[1][target.id] = root


def check_attribute_target(ctx, node: ast.Attribute) -> None:
    kind = node.ctx.__class__
    if kind is ast.Load:
        base = node.value
        if base.__class__ is ast.Name and base.id in module_names.ALWAYS \
                and ctx.version is not None:
            _state(ctx)[3].append((base.id, node.attr, ctx.pos.node_span(node)))
        return
    base = node.value
    if base.__class__ not in (ast.Name, ast.Attribute):
        return  # `decimal.getcontext().prec = 28` sets the step's own context object
    root = _root(base)
    if root is not None:
        verb = "deleting" if kind is ast.Del else "assigning to"
        _state(ctx)[2].append((root, node.attr, verb, ctx.pos.node_span(node)))


def _resolve(ctx) -> None:
    bound, aliases, targets, reads = ctx.scratch.pop(_STATE)
    versions.report_reads(ctx, [r for r in reads if r[0] not in bound])

    def foreign(name: str, depth: int = 0) -> bool:
        if name in aliases and depth < 50:
            return foreign(aliases[name], depth + 1)
        return name not in bound

    for root, attr, verb, span in targets:
        if foreign(root):
            ctx.report("SS406", span, f"{verb} attribute `{attr}` of `{root}` is not allowed "
                       "(a module, a name imported from one, or another name this function "
                       "did not bind itself)")


HANDLERS = {
    ast.Name: note_name,
    ast.arg: note_arg,
    ast.ExceptHandler: note_handler,
    ast.MatchAs: note_capture,
    ast.MatchStar: note_capture,
    ast.MatchMapping: note_capture,
    ast.Assign: note_alias,
    ast.Attribute: check_attribute_target,
}
