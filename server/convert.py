"""The one conversion between runner coordinates and LSP shapes.

Runner: 1-based lines, code-point columns (`Span`, `Problem`). LSP: 0-based lines, `character`
in the negotiated encoding (UTF-16 code units by default, UTF-8 bytes when negotiated). Clamped
as editors clamp: past the end of a line is its end, past the last line is the document's end.
"""

from __future__ import annotations

from stepsmith.runner.language.lines import strip_eol as _strip
from stepsmith.runner.problems import Problem, Severity, Span

UTF16 = "utf-16"
UTF8 = "utf-8"
UTF32 = "utf-32"


def to_codepoints(line: str, character: int, encoding: str) -> int:
    """LSP `character` on `line` (without its ending) -> code point index (clamped)."""
    if character <= 0:
        return 0
    if encoding == UTF32 or line.isascii():
        return min(character, len(line))
    units = 0
    if encoding == UTF8:
        for i, ch in enumerate(line):
            o = ord(ch)
            w = 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
            if units + w > character:
                return i
            units += w
            if units == character:
                return i + 1
        return len(line)
    for i, ch in enumerate(line):
        w = 2 if ord(ch) > 0xFFFF else 1
        if units + w > character:
            return i
        units += w
        if units == character:
            return i + 1
    return len(line)


def from_codepoints(line: str, column: int, encoding: str) -> int:
    """Code point index on `line` -> LSP `character` in `encoding`."""
    if column <= 0:
        return 0
    if encoding == UTF32 or line.isascii():
        return min(column, len(line))
    head = line[:column]
    if encoding == UTF8:
        return len(head.encode("utf-8", "surrogatepass"))
    return len(head.encode("utf-16-le", "surrogatepass")) // 2


def lsp_range(span: Span, lines, encoding: str) -> dict:
    n = len(lines)

    def pos(line1: int, col: int) -> dict:
        i = line1 - 1
        if i < 0:
            return {"line": 0, "character": 0}
        if i >= n:
            i = n - 1
            text = _strip(lines[i])
            return {"line": i, "character": from_codepoints(text, len(text), encoding)}
        text = _strip(lines[i])
        return {"line": i, "character": from_codepoints(text, min(col, len(text)), encoding)}

    start = pos(span.line, span.column)
    end = pos(span.end_line, span.end_column)
    if (end["line"], end["character"]) < (start["line"], start["character"]):
        end = dict(start)
    return {"start": start, "end": end}


def to_diagnostic(p: Problem, lines, encoding: str, source: str = "stepsmith") -> dict:
    data = {"rule": p.code, "step": p.step}
    if p.data:
        data["fix"] = p.data
    return {
        "range": lsp_range(p.span, lines, encoding),
        "severity": 2 if p.severity == Severity.WARNING else 1,
        "code": p.code,
        "source": source,
        "message": p.message,
        "data": data,
    }
