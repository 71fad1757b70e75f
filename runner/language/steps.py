"""Language-service logic for step files: symbols, completion, hover helpers.

Pure functions over the text. Positions: 1-based lines, 0-based code-point columns.
"""

from __future__ import annotations

import re

from stepsmith.runner.lines import function_spans, split_lines
from stepsmith.runner.problems import Problem, Span

from .manifest_services import Symbol

_CLOCK_RE = re.compile(r"\b(?:(?:datetime|date)\s*\.\s*)?(now|utcnow|today)\s*\(")


def _strip(line: str) -> str:
    return line.rstrip("\r\n")


# ------------------------------------------------------------------ symbols


def step_symbols(text: str) -> list[Symbol]:
    lines = split_lines(text)
    out = []
    for f in function_spans(text):
        end_line = f.end_line
        # trim trailing blank/comment lines from the range
        while end_line > f.line and not _strip(lines[end_line - 1]).strip():
            end_line -= 1
        last = _strip(lines[end_line - 1])
        out.append(Symbol(f.name, "function", Span(f.line, 0, end_line, len(last)),
                          Span(f.line, f.column, f.line, f.column + len(f.name))))
    for i, raw in enumerate(lines):
        line = _strip(raw)
        if line.startswith(("import ", "from ")):
            out.append(Symbol(line.strip(), "import", Span(i + 1, 0, i + 1, len(line)),
                              Span(i + 1, 0, i + 1, len(line))))
    out.sort(key=lambda s: (s.span.line, s.span.column))
    return out


def function_at_line(text: str, line: int):
    """The top-level function whose chunk contains 1-based `line`."""
    for f in function_spans(text):
        if f.line <= line <= f.end_line:
            return f
    return None


def def_name_at(text: str, line: int, column: int):
    """The FunctionSpan when (line, column) is on a top-level `def` line."""
    for f in function_spans(text):
        if f.line == line:
            return f
    return None


# ------------------------------------------------------------------ completion


def clock_call_at(text: str, line: int, column: int) -> str | None:
    """`datetime.now()`-style call under the cursor -> the call text, else None."""
    lines = split_lines(text)
    if not 1 <= line <= len(lines):
        return None
    s = _strip(lines[line - 1])
    for m in _CLOCK_RE.finditer(s):
        if m.start() <= column <= m.end():
            name = m.group(1)
            owner = "date" if name == "today" and "date." in m.group(0) and "datetime" not in m.group(0) else "datetime"
            return f"{owner}.{name}()"
    return None


def problems_at(problems: list[Problem], line: int, column: int) -> list[Problem]:
    out = []
    for p in problems:
        s = p.span
        if (s.line, s.column) <= (line, column) <= (s.end_line, max(s.end_column, s.column + 1)) or (
            s.line <= line <= s.end_line and s.line != s.end_line and s.line < line < s.end_line
        ):
            out.append(p)
    return out
