"""The single iterative pass over the AST, dispatching on node type.

No recursion (a recursive `NodeVisitor` dies on a 500-term expression): an explicit stack.
Each check module under `checks/` exports `HANDLERS: {node type: handler}`; handlers get
`(ctx, node)` and call `ctx.report(...)`. The walk visits a parent before its children, so
a handler may mark a child in `ctx.approved` (by `id`) to tell that child's handler it sits
in an allowed position (e.g. the `getattr` in `getattr(x, "name")`).
"""

from __future__ import annotations

import _ast as ast  # the node classes, without the `ast` module's imports (enum, contextlib)

from stepsmith.runner.problems import Problem, Span
from stepsmith.runner.validator.positions import Positions

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: `typing`/`collections.abc` are not imported at run time
    from collections.abc import Callable

    Handler = Callable[["Context", ast.AST], None]


class Context:
    """State of one validation: positions, reach, the current step, findings so far.
    (A plain class, not a dataclass: the validator is imported inside every sandbox, where
    import time counts.)"""

    __slots__ = ("approved", "bound", "deferred", "effects", "egress_allowed", "pos",
                 "problems", "root", "scratch", "step", "version")

    def __init__(self, pos: Positions, egress_allowed: bool,
                 problems: list[Problem] | None = None):
        self.pos = pos
        self.egress_allowed = egress_allowed  # every use of this file is a public_egress step
        self.effects = None  # engine._effects_view(uses): declared effects per use, or None
        self.version = None  # (3, minor) of the pinned Python whose module names hold, or None
        self.step: str | None = None  # enclosing top-level function
        self.root = None  # the top-level statement being walked (fixes find parents in it)
        self.problems: list[Problem] = [] if problems is None else problems
        self.approved: set[int] = set()
        # Names the current top-level statement binds itself, among policy.SHADOW_WATCHED
        # (a parameter `str`, a local `date = ...`, a loop variable `id`), and checks that
        # depend on them, resolved once the whole statement has been walked (`finish`).
        self.bound: set[str] = set()
        self.deferred: list = []
        # per-statement state of checks resolved in `finish` (SS406's bindings)
        self.scratch: dict = {}

    def bind(self, name: str) -> None:
        self.bound.add(name)

    def finish(self) -> None:
        """Resolve the deferred checks of one top-level statement, then reset for the next."""
        bound = self.bound
        for name, when_bound, report in self.deferred:
            if (name in bound) == when_bound:
                report()
        self.deferred.clear()
        self.scratch.clear()
        bound.clear()
        self.approved.clear()

    def report(self, code: str, span: Span, message: str, data: dict | None = None) -> None:
        self.problems.append(Problem(
            code=code,
            message=message,
            span=span,
            step=self.step,
            rationale=rationale(code),
            data=dict(data) if data else {},
        ))


_BY_CODE: dict | None = None


def rationale(code: str) -> str:
    """The rule's one-line rationale. The catalogue is imported on the first report, not with
    the validator: a clean file (every step the sandbox runs) never needs it."""
    global _BY_CODE
    if _BY_CODE is None:
        from stepsmith.runner.rules.step_rules import BY_CODE

        _BY_CODE = BY_CODE
    return _BY_CODE[code].rationale


# Fields never holding nodes we need to visit: identifiers, flags, and the `ctx`/`op`
# singletons. Per-class exceptions below cover fields whose name is reused for nodes elsewhere.
_SCALAR_FIELDS = frozenset({
    "id", "attr", "name", "asname", "module", "level", "kind", "type_comment", "conversion",
    "is_async", "ctx", "op", "ops", "kwd_attrs", "tag", "simple",
})
_SCALAR_BY_CLASS = {
    ast.Constant: {"value"},
    ast.MatchSingleton: {"value"},
    ast.Global: {"names"},
    ast.Nonlocal: {"names"},
    ast.Import: {"names"},  # alias nodes are checked by the import handlers
    ast.ImportFrom: {"names"},
    ast.arg: {"arg"},
    ast.keyword: {"arg"},
    ast.MatchMapping: {"rest"},
}


def _child_fields(cls: type) -> tuple[str, ...]:
    skip = _SCALAR_FIELDS | _SCALAR_BY_CLASS.get(cls, set())
    return tuple(f for f in getattr(cls, "_fields", ()) if f not in skip)


# Filled per node class on first sight (not for all ~120 classes at import: the validator is
# imported inside every sandbox, where a trivial step meets a dozen node classes).
CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def build_dispatch(handler_maps) -> dict[type, tuple[Handler, ...]]:
    merged: dict[type, list[Handler]] = {}
    for mapping in handler_maps:
        for node_type, handler in mapping.items():
            merged.setdefault(node_type, []).append(handler)
    return {t: tuple(hs) for t, hs in merged.items()}


def _entry(dispatch: dict[type, tuple[Handler, ...]], cls: type) -> tuple:
    names = CHILD_FIELDS.get(cls)
    if names is None:
        names = CHILD_FIELDS[cls] = _child_fields(cls)
    return (dispatch.get(cls), names)


_TABLES: dict[int, tuple[dict, dict]] = {}


def walk(root: ast.AST, ctx: Context, dispatch: dict[type, tuple[Handler, ...]]) -> None:
    """Visit `root` and every node below it, once, iteratively."""
    cached = _TABLES.get(id(dispatch))
    if cached is None or cached[0] is not dispatch:
        cached = _TABLES[id(dispatch)] = (dispatch, {})  # node class -> (handlers, fields)
    table = cached[1]
    stack: list = [root]
    pop = stack.pop
    push = stack.append
    extend = stack.extend
    while stack:
        node = pop()
        if node is None:  # Dict.keys / kw_defaults hold None
            continue
        entry = table.get(node.__class__)
        if entry is None:  # first node of this class under this dispatch table
            cls = node.__class__
            entry = table[cls] = _entry(dispatch, cls)
        handlers, names = entry
        if handlers is not None:
            for handler in handlers:
                handler(ctx, node)
        for name in names:
            value = getattr(node, name)
            if value is None:
                continue
            if value.__class__ is list:
                extend(value)
            else:
                push(value)
