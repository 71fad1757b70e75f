"""What an operator proposes (`Mutation`), what it sees (`Context`), what it is (`Operator`),
and the position helpers every operator uses (runner/mutants/apply.py's code-point spans)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from stepsmith.runner.mutants.apply import Edit, Source


@dataclass(frozen=True)
class Mutation:
    operator: str
    edit: Edit
    original: str
    replacement: str
    hint: str  # what to record so that a fixture notices


@dataclass
class Context:
    """What the operators know about the file: its text and the names `decimal` gives."""

    source: Source
    parents: dict = field(default_factory=dict)  # node -> parent node
    decimal_module: str | None = None  # `import decimal [as m]`: the name it is bound to
    from_decimal: frozenset[str] = frozenset()  # names bound by `from decimal import ...`

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(node)


@dataclass(frozen=True)
class Operator:
    name: str
    changes: str
    example: tuple[str, str]  # (before, after): one line of a step body
    find: Callable[[Context, ast.AST], Iterator[Mutation]]


def at(ctx: Context, node: ast.AST, text: str) -> Edit:
    return Edit(*ctx.source.span(node), text)


def token_edit(tok, text: str) -> Edit:
    return Edit(tok.start[0], tok.start[1], tok.end[0], tok.end[1], text)


def end(ctx: Context, node: ast.AST) -> tuple[int, int]:
    s = ctx.source.span(node)
    return s[2], s[3]


def start(ctx: Context, node: ast.AST) -> tuple[int, int]:
    s = ctx.source.span(node)
    return s[0], s[1]


def call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute):
            return f.attr
    return None
