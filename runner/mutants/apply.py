"""Positions in a step file's text and the edits that make a mutant from it.

Positions follow the project's convention (runner/problems.py): 1-based lines, 0-based columns
in code points, end exclusive. The AST counts columns in UTF-8 bytes, so every node position
goes through `Source.point`; operator tokens (`<=`, `and`, `+=`), which the AST does not
place, come from the tokenizer, whose columns are code points already.

An edit keeps positions: it replaces one span and never changes the number of lines, so every
other line of the mutant is where it was in the original, and the original's per-fixture
coverage (statement lines) says which fixtures can reach the change.
"""

from __future__ import annotations

import ast
import bisect
import io
import tokenize
from dataclasses import dataclass
from functools import cached_property

NO_MUTATE = "stepsmith: no-mutate"


@dataclass(frozen=True)
class Edit:
    line: int
    column: int
    end_line: int
    end_column: int
    text: str


class Source:
    """A step file's text with its lines, tokens and opt-out comments."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True) or [""]

    # ---------------------------------------------------------------- positions
    def point(self, line: int, byte_col: int) -> int:
        """A node's UTF-8 byte column on `line` as a code-point column."""
        if not 1 <= line <= len(self.lines):
            return byte_col
        return len(self.lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int, int, int]:
        return (node.lineno, self.point(node.lineno, node.col_offset),
                node.end_lineno, self.point(node.end_lineno, node.end_col_offset))

    def segment(self, line: int, col: int, end_line: int, end_col: int) -> str:
        if line == end_line:
            return self.lines[line - 1][col:end_col]
        parts = [self.lines[line - 1][col:]]
        parts += self.lines[line:end_line - 1]
        parts.append(self.lines[end_line - 1][:end_col])
        return "".join(parts)

    def text_of(self, node: ast.AST) -> str:
        return self.segment(*self.span(node))

    def short(self, node: ast.AST, width: int = 40) -> str:
        """A node's text on one line, cut to `width` (for messages)."""
        text = " ".join(self.text_of(node).split())
        return text if len(text) <= width else text[:width - 1] + "…"

    # ---------------------------------------------------------------- tokens
    @cached_property
    def _tokens(self) -> list[tokenize.TokenInfo]:
        try:
            return [t for t in tokenize.generate_tokens(io.StringIO(self.text).readline)
                    if t.type in (tokenize.OP, tokenize.NAME)]
        except (tokenize.TokenError, SyntaxError, IndentationError):
            return []

    @cached_property
    def _starts(self) -> list[tuple[int, int]]:
        return [t.start for t in self._tokens]

    def token_between(self, start: tuple[int, int], end: tuple[int, int],
                      strings: tuple[str, ...]) -> tokenize.TokenInfo | None:
        """The first OP/NAME token starting in [start, end) whose text is one of `strings`
        (positions (line, code-point column))."""
        i = bisect.bisect_left(self._starts, start)
        toks = self._tokens
        while i < len(toks) and toks[i].start < end:
            if toks[i].string in strings:
                return toks[i]
            i += 1
        return None

    def next_token(self, after: tuple[int, int]) -> tokenize.TokenInfo | None:
        i = bisect.bisect_left(self._starts, after)
        return self._tokens[i] if i < len(self._tokens) else None

    def previous_token(self, before: tuple[int, int]) -> tokenize.TokenInfo | None:
        i = bisect.bisect_left(self._starts, before)
        return self._tokens[i - 1] if i > 0 else None

    @cached_property
    def opted_out(self) -> frozenset[int]:
        """Lines carrying a `# stepsmith: no-mutate` comment."""
        out = set()
        try:
            for t in tokenize.generate_tokens(io.StringIO(self.text).readline):
                if t.type == tokenize.COMMENT and NO_MUTATE in t.string:
                    out.add(t.start[0])
        except (tokenize.TokenError, SyntaxError, IndentationError):
            pass
        return frozenset(out)


def apply(text: str, edit: Edit) -> str:
    """`text` with the span of `edit` replaced; a replacement shorter in lines than its span is
    padded with line breaks, so the mutant has the original's lines everywhere else."""
    lines = text.splitlines(keepends=True)
    head = "".join(lines[:edit.line - 1]) + lines[edit.line - 1][:edit.column]
    tail = lines[edit.end_line - 1][edit.end_column:] + "".join(lines[edit.end_line:])
    replacement = edit.text
    missing = (edit.end_line - edit.line) - replacement.count("\n")
    if missing > 0:
        replacement += "\n" * missing
    return head + replacement + tail
