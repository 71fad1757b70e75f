"""Static shape of a step file, computed in the parent from its text (never from the sandbox).

Statements, the arcs the code can take and which lines are branches are coverage.py's own
static analysis (`coverage.parser.PythonParser`, with coverage.py's default exclusion and
partial-branch patterns), and `StepFileShape.translate` turns a raw trace (lines and arcs as a
tracer with coverage.py's conventions records them: (-first_line, line) entering a code object,
(line, -first_line) leaving it) into statement lines and arcs exactly as coverage.py's analysis
does: multi-line statements onto their first line, jumps out of ``with`` blocks through the
``with`` line fixed, a line's self-arc onto its only way out. So the report agrees with
``coverage run --branch`` on the same executions (tests/reference/test_coverage_agreement.py).

Which physical lines belong to a multi-line statement and which names each statement binds
(for the values trace, `layout`) are computed here from the AST: a statement is counted on its
first line, a compound statement's header may span lines.

Pure and below the interpreters: a pinned interpreter's helper (pythons/helper.py) runs this
very module with its own grammar; coverage/static.analyse chooses where it runs.
"""

from __future__ import annotations

import ast
import functools
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from stepsmith.runner.pyparse import parse_module
from stepsmith.runner.validator.astlock import AST_LOCK

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_NOT_EXECUTED = (ast.Global, ast.Nonlocal)

Arc = tuple[int, int]


@dataclass(frozen=True)
class Layout:
    """Our own part of the shape (what the values trace needs; no coverage.py import)."""

    line_map: Mapping[int, int]  # physical line -> its statement's line (where they differ)
    assigns: Mapping[int, tuple[str, ...]]  # statement line -> names it binds, in order
    line_count: int


@dataclass(frozen=True)
class StepFileShape:
    """coverage.py's view of a step file: `statements`; `branches` (branch line -> every
    destination it may take; a branch line is one with more than one way out); `arcs` (every
    possible branch arc); `possible` (every possible arc, branch or not); `excluded` and
    `no_branch` lines (coverage.py's default `# pragma: no cover` / `no branch` patterns)."""

    statements: frozenset[int]
    branches: Mapping[int, frozenset[int]]
    line_map: Mapping[int, int]
    assigns: Mapping[int, tuple[str, ...]]
    line_count: int
    arcs: frozenset[Arc] = field(default=frozenset())
    possible: frozenset[Arc] = field(default=frozenset())
    excluded: frozenset[int] = field(default=frozenset())
    no_branch: frozenset[int] = field(default=frozenset())
    _translate_arcs: Callable[[Iterable[Arc]], set[Arc]] | None = field(
        default=None, compare=False, repr=False)
    _first_line: Callable[[int], int] | None = field(default=None, compare=False, repr=False)

    def statement_of(self, line: int) -> int:
        return self.line_map.get(line, line)

    @functools.cached_property
    def _single_exits(self) -> dict[int, int]:
        """Lines with exactly one possible way out -> that way."""
        dests: dict[int, set[int]] = {}
        for a, b in self.possible:
            dests.setdefault(a, set()).add(b)
        return {a: next(iter(d)) for a, d in dests.items() if len(d) == 1}

    def translate(self, lines: Iterable[int], arcs: Iterable[Arc], truncated: bool = False
                  ) -> tuple[frozenset[int], frozenset[Arc]]:
        """(executed statement lines, executed arcs) of a raw trace, as coverage.py's
        analysis makes them (`coverage.results.analysis_from_file_reporter`): executed lines
        are the statements among the (first lines of the) lines the arcs touch, arcs go
        through the parser's translation, and a self-arc counts as the line's only way out
        when it has exactly one, else not at all. `lines` (the trace's own statement lines)
        count only when the arcs were cut at their cap (`truncated`)."""
        tr = self._translate_arcs or set
        first = self._first_line or (lambda n: n)
        arcs = set(arcs)
        touched = {n for a in arcs for n in a if n > 0}
        if truncated:
            touched |= {n for n in lines if n > 0}
        executed = frozenset(first(n) for n in touched) & self.statements
        single = self._single_exits
        fixed: set[Arc] = set()
        for a, b in tr(arcs):
            if a != b:
                fixed.add((a, b))
            elif a in single:
                fixed.add((a, single[a]))
        return executed, frozenset(tr(fixed))


def first_line(node: ast.stmt) -> int:
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
    """Statement lines (for the line map) and the names each binds; no arcs (coverage.py's)."""

    def __init__(self) -> None:
        self.line_map: dict[int, int] = {}
        self.assigns: dict[int, tuple[str, ...]] = {}

    def claim(self, start: int, end: int, line: int) -> None:
        for n in range(start, end + 1):
            if n != line:
                self.line_map[n] = line
            else:
                self.line_map.pop(n, None)

    def block(self, stmts: list[ast.stmt]) -> None:
        for node in stmts:
            self.node(node)

    def node(self, node: ast.stmt) -> None:
        line = first_line(node)
        end = _header_end(node) if _is_compound(node) else (node.end_lineno or node.lineno)
        self.claim(line, end, line)
        names = _assigned(node)
        if names:
            self.assigns[line] = tuple(names)
        if isinstance(node, _DEFS):
            self.block(_body(node.body, scope=True))
            return
        for part in ("body", "orelse", "finalbody"):
            self.block(_body(getattr(node, part, None) or [], False))
        for h in getattr(node, "handlers", None) or []:
            hend = (h.type.end_lineno if h.type is not None else h.lineno) or h.lineno
            self.claim(h.lineno, hend, h.lineno)
            if h.name:
                self.assigns[h.lineno] = (h.name,)
            self.block(_body(h.body, False))
        for case in getattr(node, "cases", None) or []:
            cl = case.pattern.lineno
            self.claim(cl, (case.guard or case.pattern).end_lineno or cl, cl)
            bound: list[str] = []
            _bound_names(case.pattern, bound)
            if bound:
                self.assigns[cl] = tuple(bound)
            self.block(_body(case.body, False))


def layout(source: str) -> Layout:
    """The line map and bound names of `source` (SyntaxError if it does not parse)."""
    source = source.removeprefix("\ufeff")
    tree = parse_module(source)  # ast.parse's tree, without holding the GIL for a big file
    w = _Walker()
    w.block(_body(tree.body, scope=True))
    return Layout(dict(w.line_map), dict(w.assigns), len(source.splitlines()))


_IMPORT = threading.Lock()


@functools.cache
def _coverage_api():
    """coverage.py's parser and defaults, imported by one thread at a time: two threads
    importing its modules at once (the server's workers) can meet a circular import half
    done ("cannot import name ... from partially initialized module coverage.parser")."""
    with _IMPORT:
        from coverage.config import DEFAULT_EXCLUDE, DEFAULT_PARTIAL, DEFAULT_PARTIAL_ALWAYS
        from coverage.exceptions import NotPython
        from coverage.misc import join_regex
        from coverage.parser import PythonParser

        return (DEFAULT_EXCLUDE, DEFAULT_PARTIAL, DEFAULT_PARTIAL_ALWAYS, NotPython, join_regex,
                PythonParser)


def shape_data(source: str) -> dict:
    """coverage.py's analysis of `source` and our layout, as plain data (what a pinned
    interpreter's helper sends back: pythons/helper.py). SyntaxError if it does not parse."""
    (DEFAULT_EXCLUDE, DEFAULT_PARTIAL, DEFAULT_PARTIAL_ALWAYS, NotPython, join_regex,
     PythonParser) = _coverage_api()

    ours = layout(source)
    parser = PythonParser(text=source, exclude=join_regex(DEFAULT_EXCLUDE))
    try:
        with AST_LOCK:  # coverage.py's parser builds a tree too (validator/astlock.py)
            parser.parse_source()
            possible = sorted(parser.arcs())
    except NotPython as exc:
        raise SyntaxError(str(exc)) from None
    no_branch = parser.lines_matching(join_regex(DEFAULT_PARTIAL + DEFAULT_PARTIAL_ALWAYS))
    return {"statements": sorted(parser.statements), "possible": possible,
            "exit_counts": dict(parser.exit_counts()), "excluded": sorted(parser.excluded),
            "no_branch": sorted(no_branch),
            # what coverage.py's translate_arcs and first_line read (parser.py)
            "multiline": dict(parser.multiline_map),
            "with_jumps": dict(parser._with_jump_fixers),
            "line_map": dict(ours.line_map), "assigns": dict(ours.assigns),
            "line_count": ours.line_count}


def shape_from_data(d: dict) -> StepFileShape:
    """The StepFileShape of `shape_data`'s answer: translation as coverage.py's parser does it
    (`first_line` through its multi-line map, `translate_arcs` after its with-jump fixes)."""
    multiline = {int(k): int(v) for k, v in d["multiline"].items()}
    fixers = {tuple(k): (None if v is None else tuple(v)) for k, v in d["with_jumps"].items()}

    def first_line(n: int) -> int:
        return -multiline.get(-n, -n) if n < 0 else multiline.get(n, n)

    def translate_arcs(arcs: Iterable[Arc]) -> set[Arc]:
        fixed = {fixers.get(a, a) for a in arcs}
        return {(first_line(a), first_line(b)) for a, b in (f for f in fixed if f is not None)}

    possible = frozenset(tuple(a) for a in d["possible"])
    exits = {int(line): n for line, n in d["exit_counts"].items() if n > 1}
    excluded = frozenset(d["excluded"])
    arcs = frozenset(a for a in possible if a[0] in exits and a[1] not in excluded)
    branches: dict[int, set[int]] = {}
    for a, b in arcs:
        branches.setdefault(a, set()).add(b)
    return StepFileShape(frozenset(d["statements"]),
                         {k: frozenset(v) for k, v in branches.items()},
                         {int(k): int(v) for k, v in d["line_map"].items()},
                         {int(k): tuple(v) for k, v in d["assigns"].items()},
                         int(d["line_count"]), arcs, possible, excluded,
                         frozenset(d["no_branch"]), translate_arcs, first_line)


@functools.lru_cache(maxsize=16)
def analyse_here(source: str) -> StepFileShape:
    """The shape of `source` as this interpreter parses it (memoised per text; the workflow's
    pinned interpreter, when it is another one: coverage/static.analyse)."""
    return shape_from_data(shape_data(source))
