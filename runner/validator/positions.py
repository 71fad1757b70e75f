"""Source positions: `ast`'s UTF-8 byte columns -> code-point columns, and name lookup.

`ast` gives `lineno` (1-based) and `col_offset`/`end_col_offset` in UTF-8 *bytes* of the
line. A `Problem` wants code points (Python `str` indices). Lines are split exactly as the
tokenizer does (`\\r\\n`, `\\r`, `\\n` only; form feed and U+2028 are not line breaks), lazily,
only when a problem is reported, so clean files pay nothing.
"""

from __future__ import annotations

from stepsmith.runner.problems import Span


def _split_lines(text: str) -> list[str]:
    """`text` split at `\\r\\n`, `\\r` and `\\n` (what `re.split(r"\\r\\n|\\r|\\n")` gives;
    no `re`: it is not imported inside the sandbox)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def _ident_runs(text: str, start: int, end: int):
    """(start, end) of each maximal run of identifier characters in text[start:end]: what the
    tokenizer scans as a potential identifier (ASCII word characters and any non-ASCII
    character; validity is decided after NFKC normalisation). A plain loop rather than a
    regex: a character class spanning all of Unicode costs ~5 ms to compile at import."""
    i = start
    while i < end:
        if is_ident_char(text[i]):
            j = i + 1
            while j < end and is_ident_char(text[j]):
                j += 1
            yield i, j
            i = j
        else:
            i += 1


def nfkc(text: str) -> str:
    if text.isascii():
        return text
    import unicodedata  # only when reporting a non-ASCII name: keeps import time low

    return unicodedata.normalize("NFKC", text)


def is_ident_char(ch: str) -> bool:
    return ch == "_" or ch.isalnum() or ord(ch) > 127


class Positions:
    """Maps AST positions of one source text to `Span`s, shifted by `line_offset`."""

    def __init__(self, text: str, line_offset: int = 0):
        self._text = text
        self._lines: list[str] | None = None
        self.line_offset = line_offset

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = _split_lines(self._text)
        return self._lines

    def line(self, lineno: int) -> str:
        """Text of 1-based `lineno` (AST numbering, before the offset); '' when out of range."""
        lines = self.lines
        return lines[lineno - 1] if 1 <= lineno <= len(lines) else ""

    def char_col(self, lineno: int, byte_col: int) -> int:
        """Code-point column of UTF-8 byte column `byte_col` on `lineno`."""
        text = self.line(lineno)
        if byte_col <= 0:
            return 0
        if text.isascii():
            return min(byte_col, len(text))
        return len(text.encode("utf-8", "surrogatepass")[:byte_col].decode("utf-8", "ignore"))

    def span(self, lineno: int, col: int, end_lineno: int, end_col: int) -> Span:
        """A span from code-point positions in AST line numbering."""
        off = self.line_offset
        end_lineno, end_col = max((end_lineno, end_col), (lineno, col))
        return Span(lineno + off, col, end_lineno + off, end_col)

    def node_span(self, node) -> Span:
        lineno = getattr(node, "lineno", 1) or 1
        end_lineno = getattr(node, "end_lineno", None) or lineno
        col = self.char_col(lineno, getattr(node, "col_offset", 0) or 0)
        end_byte = getattr(node, "end_col_offset", None)
        end_col = self.char_col(end_lineno, end_byte) if end_byte is not None else col + 1
        return self.span(lineno, col, end_lineno, end_col)

    def first_line_span(self, node) -> Span:
        """The node's span cut at the end of its first line (for statements with bodies)."""
        sp = self.node_span(node)
        if sp.end_line == sp.line:
            return sp
        lineno = sp.line - self.line_offset
        return Span(sp.line, sp.column, sp.line, max(len(self.line(lineno).rstrip()), sp.column))

    def trailing_name_span(self, node) -> Span:
        """The identifier ending where `node` ends (an Attribute's `attr`, a capture name)."""
        end_lineno = getattr(node, "end_lineno", None) or node.lineno
        text = self.line(end_lineno)
        end = self.char_col(end_lineno, node.end_col_offset)
        start = end
        while start > 0 and is_ident_char(text[start - 1]):
            start -= 1
        if start == end:
            return self.node_span(node)
        return self.span(end_lineno, start, end_lineno, end)

    def find_name(self, lineno: int, start: int, end: int | None, name: str,
                  last: bool = False) -> Span | None:
        """Span of the identifier whose NFKC form is `name` on `lineno`, within code-point
        columns [start, end); the first match, or the last with `last=True`."""
        text = self.line(lineno)
        found = None
        stop = len(text) if end is None else min(end, len(text))
        for run in _ident_runs(text, max(start, 0), stop):
            if nfkc(text[run[0]:run[1]]) == name:
                found = run
                if not last:
                    break
        if found is None:
            return None
        return self.span(lineno, found[0], lineno, found[1])

    def name_in_node(self, node, name: str, last: bool = False) -> Span:
        """Span of identifier `name` on the first line of `node` (from its start), falling
        back to the node's first line."""
        lineno = node.lineno
        col = self.char_col(lineno, node.col_offset)
        return self.find_name(lineno, col, None, name, last=last) or self.first_line_span(node)

    def offset_to_span(self, text_index: int, width: int = 1) -> Span:
        """Span of a code-point index into the whole source text."""
        before = _split_lines(self._text[:text_index])  # a `\r\n` cut in two counts as `\r`
        lineno = len(before)
        col = len(before[-1])
        return self.span(lineno, col, lineno, col + width)
