"""The one conversion between runner coordinates and LSP shapes.

Runner: 1-based lines, code-point columns (`Span`, `Problem`). LSP: 0-based lines, `character`
in the negotiated encoding (UTF-16 code units by default, UTF-8 bytes when negotiated). Clamped
as editors clamp: past the end of a line is its end, past the last line is the document's end.
"""

from __future__ import annotations

from lsprotocol import types as T
from lsprotocol.converters import get_converter
from stepsmith.runner.lines import strip_eol as _strip
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


def to_diagnostic(p: Problem, lines, encoding: str, source: str = "stepsmith",
                  rule_docs: object = None) -> dict:
    """`rule_docs`: the `ruleDocsUrl` setting; the diagnostic links to the rule's page only
    when that is an https location (a file:// link would name the server's disk)."""
    data = {"rule": p.code, "step": p.step}
    fix = {k: v for k, v in p.data.items() if k != "schema"} if p.data else None
    if fix:
        data["fix"] = fix
    if p.data and p.data.get("schema"):
        data["schema"] = True  # the manifest schema expresses it: a YAML extension reports it too
    from stepsmith.runner.rules.pages import https_rule_url

    out = {
        "range": lsp_range(p.span, lines, encoding),
        "severity": 2 if p.severity == Severity.WARNING else 1,
        "code": p.code,
        "source": source,
        "message": p.message,
        "data": data,
    }
    href = https_rule_url(rule_docs, p.code)  # the rule's page (docs/rules), published
    if href:
        out["codeDescription"] = {"href": href}
    return out


def lsp_span(span: Span, lines, encoding: str):
    """A Span as an lsprotocol Range (for typed results)."""

    r = lsp_range(span, lines, encoding)
    return T.Range(T.Position(**r["start"]), T.Position(**r["end"]))


def _uri(session, path: str) -> str:
    from stepsmith.server.workspace import path_to_uri

    return session.open_uri(path) or path_to_uri(path)


def location_json(session, ws, loc) -> dict:
    """A runner Location (path, Span on that file's text in snapshot `ws`) as LSP JSON; the
    URI is the one the client opened the file under, if it is open."""
    lines = ws.lines(loc.path) or [""]
    return {"uri": _uri(session, loc.path), "range": lsp_range(loc.span, lines, session.encoding)}


def location(session, ws, loc):
    lines = ws.lines(loc.path) or [""]
    return T.Location(uri=_uri(session, loc.path), range=lsp_span(loc.span, lines, session.encoding))


def structured_diagnostics(diags: list[dict]):
    """Diagnostics built as JSON (the push path) as lsprotocol objects (the pull answer)."""

    return get_converter().structure(diags, list[T.Diagnostic])


# LSP CompletionItemKind numbers for the services' item kinds
_COMPLETION_KINDS = {"property": 10, "value": 20, "reference": 18, "file": 17, "function": 3,
                     "module": 9, "class": 7, "constant": 21, "variable": 6, "snippet": 15}


def to_completion_item(item, lines, encoding: str, snippets: bool = False) -> dict:
    """A `language.completion.Item` -> an LSP CompletionItem: its textEdit over the exact range
    it replaces (on `lines`, the text the service read) and its filterText. A snippet keeps
    its own indentation (insertTextMode asIs): clients would otherwise indent it again; to a
    client without snippet support it goes as its plain text (the placeholders' defaults)."""
    snippet = item.snippet and snippets
    out = {"label": item.label, "kind": _COMPLETION_KINDS.get(item.kind),
           "textEdit": {"range": lsp_range(item.range, lines, encoding),
                        "newText": item.new_text if snippet or not item.snippet
                        else item.filter_text},
           "filterText": item.filter_text, "sortText": item.sort_text or None,
           "detail": item.detail or None,
           "insertTextFormat": 2 if snippet else 1}
    if snippet:
        out["insertTextMode"] = 1
    if item.documentation:
        out["documentation"] = {"kind": "markdown", "value": item.documentation}
    return {k: v for k, v in out.items() if v is not None}
