"""Folding ranges and selection ranges for manifests (the positioned YAML tree) and step files
(the Python AST), in runner coordinates; a text that does not parse folds by indentation and
selects word / line / document, so editing mid-error still works.

Folds are 1-based inclusive line pairs (`kind` "comment", "imports" or "" for a region);
selection ranges are chains of Spans, innermost first, each inside the next.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from stepsmith.runner.lines import split_lines, strip_eol
from stepsmith.runner.manifest import YMap, YSeq
from stepsmith.runner.problems import Span
from stepsmith.runner.pyparse import parse_module

_WORD_RE = re.compile(r"[\w-]+")
_CHAR_RE = re.compile(r"\S")


@dataclass(frozen=True)
class Fold:
    start: int  # 1-based first line (stays visible)
    end: int  # 1-based last line folded (inclusive)
    kind: str = ""  # "comment" | "imports" | "" (a region)


def folding_ranges(snapshot, path: str) -> list[Fold]:
    text = snapshot.read_text(path)
    if text is None:
        return []
    if path.endswith(".py"):
        return step_folds(text)
    return manifest_folds(snapshot.manifest_doc(path), text)


def selection_ranges(snapshot, path: str, positions: list[tuple[int, int]]) -> list[list[Span]]:
    text = snapshot.read_text(path)
    if text is None:
        return [[] for _ in positions]
    if path.endswith(".py"):
        return [step_selection(text, ln, col) for ln, col in positions]
    doc = snapshot.manifest_doc(path)
    return [manifest_selection(doc, text, ln, col) for ln, col in positions]


# ------------------------------------------------------------------ helpers


def _plain(text: str) -> list[str]:
    return [strip_eol(x) for x in split_lines(text)]


def _last_content_line(lines: list[str], start: int, end: int) -> int:
    """The last line in [start, end] (1-based) that is neither blank nor a comment."""
    while end > start and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    return end


def _trim(span: Span, lines: list[str]) -> Span:
    """A block node's end is the start of the next token: pull it back to its last text."""
    if span.end_line > span.line and span.end_column == 0:
        end = _last_content_line(lines, span.line, span.end_line - 1)
        return Span(span.line, span.column, end, len(lines[end - 1]))
    return span


def _comment_folds(lines: list[str]) -> list[Fold]:
    out, start = [], None
    for i, line in enumerate(lines + [""], 1):
        if line.lstrip().startswith("#"):
            start = start or i
        else:
            if start is not None and i - 1 > start:
                out.append(Fold(start, i - 1, "comment"))
            start = None
    return out


def _indent_folds(lines: list[str]) -> list[Fold]:
    """Folding by indentation (what editors do without a language server)."""
    out, stack = [], []  # (indent, line)
    for i, line in enumerate(lines + ["x"], 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        ind = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= ind:
            _, start = stack.pop()
            end = _last_content_line(lines, start, i - 1)
            if end > start:
                out.append(Fold(start, end))
        stack.append((ind, i))
    return out


def _done(folds: list[Fold]) -> list[Fold]:
    seen = {}
    for f in folds:
        if f.end > f.start:
            seen.setdefault(f.start, f)  # one fold per start line (editors keep one)
    return sorted(seen.values(), key=lambda f: (f.start, f.end))


def _word(lines: list[str], line: int, column: int) -> Span | None:
    if not 1 <= line <= len(lines):
        return None
    for pattern in (_WORD_RE, _CHAR_RE):  # a word touching the cursor wins over a bracket
        for m in pattern.finditer(lines[line - 1]):
            if m.start() <= column <= m.end():
                return Span(line, m.start(), line, m.end())
    return None


def _chain(spans: list[Span | None], lines: list[str]) -> list[Span]:
    """Innermost first; drop repeats and any span that does not contain the previous one."""
    doc = Span(1, 0, len(lines), len(lines[-1]) if lines else 0)
    out: list[Span] = []
    for s in [*spans, doc]:
        if s is None:
            continue
        if out:
            p = out[-1]
            if s == p or (s.line, s.column) > (p.line, p.column) or \
                    (s.end_line, s.end_column) < (p.end_line, p.end_column):
                continue
        out.append(s)
    return out


def _line_span(lines: list[str], line: int) -> Span | None:
    if not 1 <= line <= len(lines):
        return None
    text = lines[line - 1]
    return Span(line, len(text) - len(text.lstrip()), line, len(text.rstrip()))


# ------------------------------------------------------------------ manifests


def manifest_folds(doc, text: str) -> list[Fold]:
    lines = _plain(text)
    root = getattr(doc, "root", None)
    if root is None:
        return _done(_indent_folds(lines) + _comment_folds(lines))
    out = _comment_folds(lines)
    todo = [root]
    while todo:
        node = todo.pop()
        if isinstance(node, YMap):
            for pair in node.pairs:
                end = _trim(pair.value.span, lines).end_line
                out.append(Fold(pair.key.pos[0], end))
                todo.append(pair.value)
        elif isinstance(node, YSeq):
            for item in node.items:
                if not node.flow:
                    out.append(Fold(item.pos[0], _trim(item.span, lines).end_line))
                todo.append(item)
    return _done(out)


def manifest_selection(doc, text: str, line: int, column: int) -> list[Span]:
    """Word, scalar, key/value pair, enclosing collection ... document."""

    lines = _plain(text)
    pos = (line, column)

    def inside(sp: Span) -> bool:
        return (sp.line, sp.column) <= pos <= (sp.end_line, sp.end_column)

    outer: list[Span] = []  # outermost first
    node = getattr(doc, "root", None)
    while node is not None:
        outer.append(_trim(node.span, lines))
        nxt = None
        if isinstance(node, YMap):
            for pair in node.pairs:
                whole = _trim(Span(pair.key.pos[0], pair.key.pos[1], *pair.value.pos[2:]), lines)
                if inside(pair.key.span):
                    outer += [whole, pair.key.span]
                    break
                if inside(whole):
                    outer.append(whole)
                    nxt = pair.value
                    break
        elif isinstance(node, YSeq):
            nxt = next((item for item in node.items if inside(item.span)), None)
        node = nxt
    if not outer:
        outer.append(_line_span(lines, line))
    return _chain([_word(lines, line, column), *reversed(outer)], lines)


# ------------------------------------------------------------------ step files


def _col(lines: list[str], line: int, byte: int) -> int:
    if not 1 <= line <= len(lines):
        return 0
    return len(lines[line - 1].encode("utf-8")[:byte].decode("utf-8", "replace"))


def _node_span(lines: list[str], node: ast.AST) -> Span:
    return Span(node.lineno, _col(lines, node.lineno, node.col_offset),
                node.end_lineno, _col(lines, node.end_lineno, node.end_col_offset))


def _parse(text: str) -> ast.Module | None:
    try:
        return parse_module(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def step_folds(text: str) -> list[Fold]:
    lines = _plain(text)
    tree = _parse(text)
    if tree is None:
        return _done(_indent_folds(lines) + _comment_folds(lines))
    out = _comment_folds(lines)
    run: list[ast.stmt] = []
    for stmt in tree.body + [None]:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            run.append(stmt)
            continue
        if len(run) > 1 or (run and run[0].end_lineno > run[0].lineno):
            out.append(Fold(run[0].lineno, run[-1].end_lineno, "imports"))
        run = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) or not hasattr(node, "end_lineno"):
            continue
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(node, (ast.stmt, ast.excepthandler)):
            out.append(Fold(node.lineno, body[-1].end_lineno))
            for block in (getattr(node, "orelse", None), getattr(node, "finalbody", None)):
                if block and not (len(block) == 1 and isinstance(block[0], ast.If)
                                  and lines[block[0].lineno - 1].lstrip().startswith("elif")):
                    out.append(Fold(block[0].lineno - 1, block[-1].end_lineno))
        elif isinstance(node, ast.expr) and node.end_lineno > node.lineno:
            out.append(Fold(node.lineno, node.end_lineno))
    return _done(out)


def step_selection(text: str, line: int, column: int) -> list[Span]:
    """Word, the string's text inside its quotes, every enclosing expression and statement,
    the function ... document."""
    lines = _plain(text)
    tree = _parse(text)
    found: list[Span] = []
    pos = (line, column)
    if tree is not None:
        for node in ast.walk(tree):
            if not hasattr(node, "end_lineno") or node.end_lineno is None:
                continue
            sp = _node_span(lines, node)
            if (sp.line, sp.column) <= pos <= (sp.end_line, sp.end_column):
                found.append(sp)
                if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                        and sp.line == sp.end_line and sp.end_column - sp.column >= 2:
                    found.append(Span(sp.line, sp.column + 1, sp.line, sp.end_column - 1))
    if tree is None:
        found.append(_line_span(lines, line))
    # nested spans: the later start first, then the earlier end (innermost first)
    found.sort(key=lambda s: (-s.line, -s.column, s.end_line, s.end_column))
    return _chain([_word(lines, line, column), *found], lines)
