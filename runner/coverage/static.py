"""Static shape of a step file, computed in the parent from its AST (never from the sandbox):
which lines are statements, which arcs a branch can take, which physical lines belong to a
multi-line statement, and which names each statement binds.

Conventions follow coverage.py: a statement is counted on its first line (a decorated
``def`` on its first decorator); an arc is (from_line, to_line) between statement lines, and
leaving a code object is (line, -first_line of that code object) ("line->exit"); the module's
first line is 1. Branches are the lines of ``if``/``elif``, ``while`` (not ``while True``),
``for`` and ``case`` (a ``case`` that can fail falls through to the next one). ``try`` is not a
branch (coverage.py's report has no try arcs either: any line may raise); its ``except`` lines
are statements. Docstrings, ``global``/``nonlocal``, ``else:``/``finally:`` lines execute
nothing and are not statements.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from stepsmith.runner.pyparse import parse_module

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_NOT_EXECUTED = (ast.Global, ast.Nonlocal)


@dataclass(frozen=True)
class StepFileShape:
    statements: frozenset[int]
    branches: Mapping[int, frozenset[int]]  # branch line -> every destination it may take
    line_map: Mapping[int, int]  # physical line -> its statement's line (where they differ)
    assigns: Mapping[int, tuple[str, ...]]  # statement line -> names it binds, in order
    line_count: int
    arcs: frozenset[tuple[int, int]] = field(default=frozenset())  # every possible branch arc

    def statement_of(self, line: int) -> int:
        return self.line_map.get(line, line)


def first_line(node: ast.AST) -> int:
    if isinstance(node, _DEFS) and node.decorator_list:
        return min(d.lineno for d in node.decorator_list)
    return node.lineno


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
        and isinstance(node.value.value, str)


def _body(stmts: list[ast.stmt], scope: bool) -> list[ast.stmt]:
    """A block's statements that execute (a scope's leading docstring does not)."""
    if scope and stmts and _is_docstring(stmts[0]):
        stmts = stmts[1:]
    return [s for s in stmts if not isinstance(s, _NOT_EXECUTED)]


def _header_end(node: ast.stmt) -> int:
    """Last line of a compound statement's header (what runs on its own line events)."""
    if isinstance(node, (ast.If, ast.While)):
        return node.test.end_lineno or node.lineno
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return node.iter.end_lineno or node.lineno
    if isinstance(node, ast.Match):
        return node.subject.end_lineno or node.lineno
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return max(i.context_expr.end_lineno or node.lineno for i in node.items)
    if isinstance(node, _DEFS):
        return max(node.lineno, node.body[0].lineno - 1)
    return node.lineno  # try:


def _is_compound(node: ast.stmt) -> bool:
    return hasattr(node, "body") and isinstance(node.body, list)


def _bound_names(node: ast.AST | None, out: list[str]) -> None:
    """Names a target expression or pattern binds (a subscript/attribute target: its root)."""
    todo = [node] if node is not None else []
    while todo:
        n = todo.pop(0)
        if isinstance(n, ast.Name):
            if n.id not in out:
                out.append(n.id)
        elif isinstance(n, (ast.Tuple, ast.List)):
            todo[:0] = n.elts
        elif isinstance(n, (ast.Starred, ast.Subscript, ast.Attribute)):
            todo.insert(0, n.value)
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)):
            if n.name and n.name not in out:
                out.append(n.name)
            if isinstance(n, ast.MatchAs) and n.pattern is not None:
                todo.insert(0, n.pattern)
        elif isinstance(n, ast.MatchMapping):
            todo[:0] = list(n.patterns)
            if n.rest and n.rest not in out:
                out.append(n.rest)
        elif isinstance(n, (ast.MatchSequence, ast.MatchOr)):
            todo[:0] = list(n.patterns)
        elif isinstance(n, ast.MatchClass):
            todo[:0] = list(n.patterns) + list(n.kwd_patterns)


def _header_exprs(node: ast.stmt) -> Iterable[ast.AST]:
    for name, value in ast.iter_fields(node):
        if name in ("body", "orelse", "finalbody", "handlers", "cases", "decorator_list"):
            continue
        if isinstance(value, ast.AST):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, ast.AST))


def _assigned(node: ast.stmt) -> list[str]:
    out: list[str] = []
    if isinstance(node, ast.Assign):
        for t in node.targets:
            _bound_names(t, out)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        if not isinstance(node, ast.AnnAssign) or node.value is not None:
            _bound_names(node.target, out)
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        _bound_names(node.target, out)
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            _bound_names(item.optional_vars, out)
    if not isinstance(node, _DEFS):  # walrus targets in the statement's own expressions
        for expr in _header_exprs(node):
            for sub in ast.walk(expr):
                if isinstance(sub, ast.NamedExpr):
                    _bound_names(sub.target, out)
    return out


class _Walker:
    def __init__(self, line_count: int):
        self.statements: set[int] = set()
        self.branches: dict[int, set[int]] = {}
        self.line_map: dict[int, int] = {}
        self.assigns: dict[int, tuple[str, ...]] = {}
        self.line_count = line_count

    def claim(self, start: int, end: int, line: int) -> None:
        for n in range(start, end + 1):
            if n != line:
                self.line_map[n] = line
            else:
                self.line_map.pop(n, None)

    def statement(self, line: int, end: int) -> None:
        self.statements.add(line)
        self.claim(line, end, line)

    def block(self, stmts: list[ast.stmt], after: int) -> None:
        for i, node in enumerate(stmts):
            nxt = first_line(stmts[i + 1]) if i + 1 < len(stmts) else after
            self.node(node, nxt)

    def entry(self, stmts: list[ast.stmt], otherwise: int) -> int:
        return first_line(stmts[0]) if stmts else otherwise

    def node(self, node: ast.stmt, nxt: int) -> None:
        line = first_line(node)
        end = _header_end(node) if _is_compound(node) else (node.end_lineno or node.lineno)
        self.statement(line, end)
        names = _assigned(node)
        if names:
            self.assigns[line] = tuple(names)
        if isinstance(node, _DEFS):
            body = _body(node.body, scope=True)
            exit_ = -line
            self.block(body, exit_)
            return
        if isinstance(node, ast.If):
            body, orelse = _body(node.body, False), _body(node.orelse, False)
            self.branches[line] = {self.entry(body, nxt), self.entry(orelse, nxt)}
            self.block(body, nxt)
            self.block(orelse, nxt)
        elif isinstance(node, _LOOPS):
            body, orelse = _body(node.body, False), _body(node.orelse, False)
            leave = self.entry(orelse, nxt)
            forever = isinstance(node, ast.While) and isinstance(node.test, ast.Constant) \
                and bool(node.test.value)
            if not forever:  # `while True:` always enters: no branch
                self.branches[line] = {self.entry(body, line), leave}
            self.block(body, line)
            self.block(orelse, nxt)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            final = _body(node.finalbody, False)
            after = self.entry(final, nxt)
            orelse = _body(node.orelse, False)
            self.block(_body(node.body, False), self.entry(orelse, after))
            for h in node.handlers:
                hl = h.lineno
                hend = (h.type.end_lineno if h.type is not None else hl) or hl
                self.statement(hl, hend)
                if h.name:
                    self.assigns[hl] = (h.name,)
                self.block(_body(h.body, False), after)
            self.block(orelse, after)
            self.block(final, nxt)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            self.block(_body(node.body, False), nxt)
        elif isinstance(node, ast.Match):
            for i, case in enumerate(node.cases):
                cl = case.pattern.lineno
                cend = (case.guard or case.pattern).end_lineno or cl
                self.statement(cl, cend)
                names: list[str] = []
                _bound_names(case.pattern, names)
                if names:
                    self.assigns[cl] = tuple(names)
                fail = case_line(node.cases[i + 1]) if i + 1 < len(node.cases) else nxt
                body = _body(case.body, False)
                irrefutable = case.guard is None and _irrefutable(case.pattern)
                if not irrefutable:
                    self.branches[cl] = {self.entry(body, nxt), fail}
                self.block(body, nxt)


def case_line(case: ast.match_case) -> int:
    return case.pattern.lineno


def _irrefutable(p: ast.pattern) -> bool:
    if isinstance(p, ast.MatchAs):
        return p.pattern is None or _irrefutable(p.pattern)
    if isinstance(p, ast.MatchOr):
        return any(_irrefutable(x) for x in p.patterns)
    return False


def analyse(source: str) -> StepFileShape:
    """The shape of `source` (SyntaxError if it does not parse)."""
    source = source.removeprefix("\ufeff")
    tree = parse_module(source)
    count = len(source.splitlines())
    w = _Walker(count)
    w.block(_body(tree.body, scope=True), -1)
    branches = {k: frozenset(v) for k, v in w.branches.items() if len(v) > 1}
    arcs = frozenset((k, d) for k, v in branches.items() for d in v)
    return StepFileShape(frozenset(w.statements), branches, dict(w.line_map),
                         dict(w.assigns), count, arcs)
