"""Every mutant of a step file: the operators applied to the bodies of the functions asked
for, each mutant's text made (positions kept) and checked by the dialect validator. A mutant
the validator refuses is dropped (counted), never run; a line marked `# stepsmith: no-mutate`
is skipped and listed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from stepsmith.runner.mutants.apply import Source, apply
from stepsmith.runner.mutants.operators import OPERATORS, Context, Mutation
from stepsmith.runner.validator import validate


@dataclass(frozen=True)
class Mutant:
    mutation: Mutation
    function: str  # the top-level function whose body holds the change
    text: str  # the whole mutated file

    @property
    def line(self) -> int:
        return self.mutation.edit.line

    @property
    def key(self) -> tuple:
        e = self.mutation.edit
        return (e.line, e.column, e.end_line, e.end_column, self.mutation.operator,
                self.mutation.replacement)


@dataclass(frozen=True)
class OptOut:
    line: int
    text: str  # the line, stripped
    mutants: int  # how many mutants it keeps from running


@dataclass
class FileMutants:
    mutants: list[Mutant] = field(default_factory=list)
    opted_out: list[OptOut] = field(default_factory=list)
    refused: int = 0  # mutants the validator refused (not run)


def context(tree: ast.Module, source: Source) -> Context:
    ctx = Context(source)
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "decimal":
                    ctx.decimal_module = a.asname or "decimal"
        elif isinstance(node, ast.ImportFrom) and node.module == "decimal" and not node.level:
            names.update(a.asname or a.name for a in node.names if (a.asname or a.name) == a.name)
    ctx.from_decimal = frozenset(names)
    return ctx


def _nodes(fn: ast.FunctionDef) -> Iterable[ast.AST]:
    """The nodes of a function's body, f-strings and the docstring left out."""
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.JoinedStr):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def mutations(text: str, functions: Iterable[str]) -> list[tuple[str, Mutation]]:
    """(function, mutation) for every operator on the bodies of `functions`, by position."""
    tree = ast.parse(text)
    source = Source(text)
    ctx = context(tree, source)
    wanted = set(functions)
    out: list[tuple[str, Mutation]] = []
    for top in tree.body:
        if not isinstance(top, ast.FunctionDef) or top.name not in wanted:
            continue
        for parent in ast.walk(top):
            for child in ast.iter_child_nodes(parent):
                ctx.parents[child] = parent
        for node in _nodes(top):
            for op in OPERATORS:
                out.extend((top.name, m) for m in op.find(ctx, node))
    out.sort(key=lambda fm: (fm[1].edit.line, fm[1].edit.column, fm[1].operator,
                             fm[1].replacement))
    return out


def file_mutants(text: str, functions: Iterable[str], *, python: str,
                 uses: Sequence = ()) -> FileMutants:
    """The mutants of `functions` in `text` that the validator accepts (`uses`: the steps
    running functions of this file, as the check gives them)."""
    source = Source(text)
    out = FileMutants()
    opted: dict[int, int] = {}
    seen: set[str] = set()
    for function, m in mutations(text, functions):
        if m.edit.line in source.opted_out:
            opted[m.edit.line] = opted.get(m.edit.line, 0) + 1
            continue
        mutated = apply(text, m.edit)
        if mutated == text or mutated in seen:
            continue
        seen.add(mutated)
        if any(p.severity != "warning" for p in validate(mutated, python=python, uses=uses)):
            out.refused += 1
            continue
        out.mutants.append(Mutant(m, function, mutated))
    out.opted_out = [OptOut(line, source.lines[line - 1].strip(), n)
                     for line, n in sorted(opted.items())]
    return out


def closure(tree: ast.Module, roots: Iterable[str]) -> list[ast.stmt]:
    """The top-level statements a call of `roots` can run: the imports and every function
    reachable by name from them (names are the only way to reach one: the dialect has no
    `globals()`)."""
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    todo = [r for r in roots if r in defs]
    reached: set[str] = set()
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        for node in ast.walk(defs[name]):
            if isinstance(node, ast.Name) and node.id in defs and node.id not in reached:
                todo.append(node.id)
    return [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
            or (isinstance(n, ast.FunctionDef) and n.name in reached)]
