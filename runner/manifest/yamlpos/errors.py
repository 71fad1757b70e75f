"""The problems a manifest's YAML raises: the Problem factory, libyaml's errors made readable."""

from __future__ import annotations

import yaml
from stepsmith.runner.problems import Problem, Span


def _problem(code: str, message: str, span: Span, path: str | None) -> Problem:
    from stepsmith.runner.rules.manifest_rules import rationale

    return Problem(code=code, message=message, span=span, path=path, rationale=rationale(code))


def describe_mark_error(exc: yaml.MarkedYAMLError, text: str) -> tuple[str, Span]:
    mark = exc.problem_mark or exc.context_mark
    problem = (exc.problem or exc.context or "invalid YAML").strip()
    if mark is None:
        return f"YAML syntax error: {problem}", Span(1, 0, 1, 1)
    cm = exc.context_mark
    if exc.context and "quoted scalar" in exc.context and cm is not None:
        # an unclosed quote: the useful position is where the string opens
        quote = "double" if _char_at(text, cm.line, cm.column) == '"' else "single"
        return (
            f"YAML syntax error: unclosed {quote} quote; the string starting here never ends "
            f"({problem} at line {mark.line + 1})",
            Span(cm.line + 1, cm.column, cm.line + 1, cm.column + 1),
        )
    line, col = mark.line, mark.column
    message = f"YAML syntax error: {problem}"
    if _char_at(text, line, col) == "\t":
        message = "YAML syntax error: tab character; YAML indentation must use spaces"
    elif exc.context and cm is not None and exc.problem_mark is not None:
        message += f" (while {exc.context.strip().removeprefix('while ')} at line {cm.line + 1}, column {cm.column + 1})"
    hint = _unbalanced_quote_before(text, line)
    if hint is not None and hint[0] < line:
        message += f"; possibly caused by the quote opened at line {hint[0] + 1}, column {hint[1] + 1}"
    return message, Span(line + 1, col, line + 1, col + 1)


def _char_at(text: str, line: int, col: int) -> str:
    start = 0
    for _ in range(line):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    row = text[start:] if end < 0 else text[start:end]
    return row[col] if col < len(row) else ""


def _unbalanced_quote_before(text: str, last_line: int) -> tuple[int, int] | None:
    """First line (up to `last_line`) with an odd number of unescaped double quotes: a likely
    unclosed string that swallowed what follows. A hint only; positions stay the parser's."""
    for i, row in enumerate(text.split("\n", last_line + 1)[: last_line + 1]):
        if '"' not in row:
            continue
        idx = [j for j, ch in enumerate(row) if ch == '"' and (j == 0 or row[j - 1] != "\\")]
        if len(idx) % 2 == 1:
            return i, idx[-1] if len(idx) == 1 else idx[0]
    return None
