"""A `typing` import used only in annotations goes with those annotations, in one fix.

`from typing import Dict, List` is refused (nothing is installed in the sandbox, `typing`
included), and a step's annotations mean nothing to its run: a local variable's annotation is
never evaluated, a parameter's or return annotation only into `__annotations__`, which step
code cannot read. So removing the import together with every annotation that names it keeps
the program meaning what it meant, provided each such annotation is a plain type expression
(names, attributes, subscripts, `|`, literals: nothing that calls or binds). Any other use
of the name (a call, `isinstance`, a default value) leaves no such fix; fix_safety.py judges
the result like any fix.

Edits: `x: T` -> `x`, `x: T = d` -> `x=d` (parameters); `-> T` goes; `y: T = v` -> `y = v`;
a bare `y: T` is removed (fix_safety refuses it when `y` would no longer be local).
"""

from __future__ import annotations

import ast
import io
import tokenize

from stepsmith.runner.fixes import TextEdit
from stepsmith.runner.problems import Span
from stepsmith.runner.validator import fix_edits
from stepsmith.runner.validator.positions import Positions

_PURE = (ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.List, ast.Constant,
         ast.BinOp, ast.BitOr, ast.Load, ast.Starred)
_SKIP = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
_TYPING = "typing"


def statements(tree):
    """Every statement of the file, nested ones included (defs and classes are statements:
    expressions are not walked)."""
    stack = list(tree.body)
    while stack:
        st = stack.pop()
        yield st
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(st, field, ()) or ())


def _is_typing(origin) -> bool:
    return isinstance(origin, str) and (origin == _TYPING or origin.startswith(_TYPING + "."))


def with_annotations(text: str, binds, edits) -> tuple[tuple[TextEdit, ...], list[str]] | None:
    """(the import's `edits` plus edits removing every annotation naming what it binds, the
    names), or None when a name it binds is used outside a plain type annotation, or it
    binds anything but `typing` names."""
    if not isinstance(binds, list) or not binds or not all(
            isinstance(b, list) and len(b) == 2 and b[0] != "*" and _is_typing(b[1])
            for b in binds):
        return None
    names = {b[0] for b in binds}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    sites = _Sites(text, tree)
    roots = _annotation_roots(tree)
    # a use anywhere else stays a use: fix_safety finds it undefined after the removal
    out = list(edits)
    for annotation, owner, kind in roots:
        if not names & _names_in(annotation):
            continue
        if not all(isinstance(n, _PURE) for n in ast.walk(annotation)) or (
                isinstance(annotation, ast.BinOp) and not _only_bitor(annotation)):
            return None
        made = sites.removal(annotation, owner, kind)
        if made is None:
            return None
        out.extend(made)
    return tuple(out), sorted(names)


def _only_bitor(node) -> bool:
    return all(not isinstance(n, ast.BinOp) or isinstance(n.op, ast.BitOr)
               for n in ast.walk(node))


def _names_in(annotation) -> set[str]:
    found = {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)}
    for n in ast.walk(annotation):  # a string annotation is read as its expression
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            try:
                inner = ast.parse(n.value.strip(), mode="eval")
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            found |= {m.id for m in ast.walk(inner) if isinstance(m, ast.Name)}
    return found


def _annotation_roots(tree) -> list[tuple]:
    """(annotation, the node it annotates, kind) for every annotation in the file."""
    out = []
    for node in statements(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs,
                        *(x for x in (a.vararg, a.kwarg) if x is not None)]:
                if arg.annotation is not None:
                    out.append((arg.annotation, arg, "arg"))
            if node.returns is not None:
                out.append((node.returns, node, "returns"))
        elif isinstance(node, ast.AnnAssign):
            out.append((node.annotation, node, "assign"))
    return out


class _Sites:
    """Edits removing one annotation, positioned by the tokens (parentheses, comments and
    line continuations included) in code-point columns."""

    def __init__(self, text: str, tree):
        self.pos = Positions(text)
        self.tree = tree
        self.tokens: list = []
        self.at: dict = {}

    def _tokenize(self, first: int, last: int) -> None:
        """The tokens of lines `first`..`last` (a statement's, from its own line start):
        only what an edit needs is read, not the whole file."""
        lines = self.pos.lines[first - 1:last]
        source = io.StringIO("\n".join(lines) + "\n")
        toks = []
        try:
            for t in tokenize.generate_tokens(source.readline):
                if t.type not in _SKIP and t.type != tokenize.ENDMARKER:
                    toks.append(t._replace(start=(t.start[0] + first - 1, t.start[1]),
                                           end=(t.end[0] + first - 1, t.end[1])))
        except (tokenize.TokenError, SyntaxError):
            pass  # a region cut mid-statement ends early: what was read is kept
        self.tokens = toks
        self.at = {t.start: i for i, t in enumerate(toks)}

    def _index(self, lineno: int, byte_col: int) -> int | None:
        return self.at.get((lineno, self.pos.char_col(lineno, byte_col)))

    def _span(self, start, end) -> Span:
        return Span(start[0], start[1], end[0], end[1])

    def _scan(self, i: int, stops: tuple[str, ...]) -> int | None:
        """Index of the first token from `i` that is one of `stops` at depth 0 (or closes a
        bracket opened before `i`)."""
        depth = 0
        for j in range(i, len(self.tokens)):
            s = self.tokens[j].string if self.tokens[j].type == tokenize.OP else ""
            if depth == 0 and (s in stops or s in (")", "]", "}")):
                return j
            if s in ("(", "[", "{"):
                depth += 1
            elif s in (")", "]", "}"):
                depth -= 1
        return None

    def removal(self, annotation, owner, kind) -> list[TextEdit] | None:
        if kind == "assign":
            self._tokenize(owner.lineno, owner.end_lineno)
        else:  # a parameter or the return: the header of the function it belongs to
            fn = owner if kind == "returns" else self._function_of(owner)
            if fn is None:
                return None
            self._tokenize(fn.lineno, fn.body[0].end_lineno if fn.body else fn.end_lineno)
        return getattr(self, "_" + kind)(annotation, owner)

    def _function_of(self, arg):
        for node in statements(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                if any(x is arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg,
                                           a.kwarg]):
                    return node
        return None

    def _arg(self, annotation, arg) -> list[TextEdit] | None:
        i = self._index(arg.lineno, arg.col_offset)
        toks = self.tokens
        if i is None or i + 1 >= len(toks) or toks[i + 1].string != ":":
            return None
        stop = self._scan(i + 2, (",", "="))
        if stop is None:
            return None
        name_end = toks[i].end
        if toks[stop].string == "=" and stop + 1 < len(toks):
            return [TextEdit(self._span(name_end, toks[stop + 1].start), "=")]
        return [TextEdit(self._span(name_end, toks[stop - 1].end), "")]

    def _returns(self, annotation, fn) -> list[TextEdit] | None:
        j = self._index(annotation.lineno, annotation.col_offset)
        toks = self.tokens
        if j is None:
            return None
        while j > 0 and toks[j - 1].string == "(":
            j -= 1
        arrow = j - 1
        if arrow < 1 or toks[arrow].string != "->":
            return None
        colon = self._scan(arrow + 1, (":",))
        if colon is None or toks[colon].string != ":":
            return None
        return [TextEdit(self._span(toks[arrow - 1].end, toks[colon].start), "")]

    def _assign(self, annotation, node) -> list[TextEdit] | None:
        i = self._index(node.lineno, node.col_offset)
        if i is None:
            return None
        colon = self._scan(i, (":",))
        toks = self.tokens
        if colon is None or colon == i or toks[colon].string != ":":
            return None
        if node.value is None:
            if not node.simple:
                return None  # `a.b: T` evaluates `a`: removing it is not the same program

            ctx = _StatementContext(self.pos, self.tree)
            return [TextEdit(s, t) for s, t in fix_edits.remove_statement(ctx, node)]
        eq = self._scan(colon + 1, ("=",))
        if eq is None or toks[eq].string != "=":
            return None
        return [TextEdit(self._span(toks[colon - 1].end, toks[eq].start), " ")]


class _StatementContext:
    """What validator/fix_edits.remove_statement reads of a validation context."""

    def __init__(self, pos, root):
        self.pos = pos
        self.root = root
