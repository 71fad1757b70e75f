"""The problems a manifest's YAML raises: the Problem factory, libyaml's errors made readable."""

from __future__ import annotations

import bisect
import re

import yaml
from stepsmith.runner.problems import Problem, Span
from stepsmith.runner.rules.manifest_rules import rationale


def _problem(code: str, message: str, span: Span, path: str | None) -> Problem:
    return Problem(code=code, message=message, span=span, path=path, rationale=rationale(code))


_EOL = re.compile(r"\r\n|\r|\n")


class _EditorLines:
    """Character offsets -> editor positions (lines end at \\r\\n, \\r or \\n, as in LSP).
    libyaml's own line/column are not used for errors: at the end of a text without a final
    newline it reports a line after the last one."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in _EOL.finditer(text)]

    def pos(self, mark) -> tuple[int, int]:
        """0-based (line, column) of a mark, from its character index."""
        index = min(max(mark.index, 0), len(self.text))
        line = bisect.bisect_right(self.starts, index) - 1
        return line, index - self.starts[line]

    def char(self, mark) -> str:
        index = mark.index
        return self.text[index] if 0 <= index < len(self.text) else ""

    def point(self, mark) -> Span:
        line, col = self.pos(mark)
        width = 1 if self.char(mark) not in ("", "\r", "\n") else 0
        return Span(line + 1, col, line + 1, col + width)

    def row(self, line: int) -> str:
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[line]:end].rstrip("\r\n")


def describe_mark_error(exc: yaml.MarkedYAMLError, text: str) -> tuple[str, Span]:
    mark = exc.problem_mark or exc.context_mark
    problem = (exc.problem or exc.context or "invalid YAML").strip()
    if mark is None:
        return f"YAML syntax error: {problem}", Span(1, 0, 1, 1)
    lines = _EditorLines(text)
    cm = exc.context_mark
    line = lines.pos(mark)[0]
    if exc.context and "quoted scalar" in exc.context and cm is not None:
        # an unclosed quote: the useful position is where the string opens
        quote = "double" if lines.char(cm) == '"' else "single"
        return (
            f"YAML syntax error: unclosed {quote} quote; the string starting here never ends "
            f"({problem} at line {line + 1})",
            lines.point(cm),
        )
    message = f"YAML syntax error: {problem}"
    plain = _in_authors_terms(exc, lines, problem)
    if lines.char(mark) == "\t":
        message = "YAML syntax error: tab character; YAML indentation must use spaces"
    elif plain is not None:
        message = f"YAML syntax error: {plain}"
    elif exc.context and cm is not None and exc.problem_mark is not None:
        cl, cc = lines.pos(cm)
        message += f" (while {exc.context.strip().removeprefix('while ')} at line {cl + 1}, column {cc + 1})"
    hint = _unbalanced_quote_before(lines, line)
    if hint is not None and hint[0] < line:
        message += f"; possibly caused by the quote opened at line {hint[0] + 1}, column {hint[1] + 1}"
    return message, lines.point(mark)


def _unbalanced_quote_before(lines: _EditorLines, last_line: int) -> tuple[int, int] | None:
    """First line (up to `last_line`) with an odd number of unescaped double quotes: a likely
    unclosed string that swallowed what follows. A hint only; positions stay the parser's."""
    for i in range(min(last_line + 1, len(lines.starts))):
        row = lines.row(i)
        if '"' not in row:
            continue
        idx = [j for j, ch in enumerate(row) if ch == '"' and (j == 0 or row[j - 1] != "\\")]
        if len(idx) % 2 == 1:
            return i, idx[-1] if len(idx) == 1 else idx[0]
    return None


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip(" "))


def _in_authors_terms(exc, lines: _EditorLines, problem: str) -> str | None:
    """PyYAML's parser words for the common slips, said as the author sees them (positions
    1-based, as editors show them); None: keep the parser's words."""
    mark, cm = exc.problem_mark, exc.context_mark
    if mark is None:
        return None
    line, col = lines.pos(mark)
    if "expected '-' indicator" in problem and cm is not None:
        # a key of a list item indented off its siblings
        dash = lines.pos(cm)[1]
        item = next((i for i in range(line - 1, -1, -1)
                     if lines.row(i)[dash:dash + 2] == "- " and _indent(lines.row(i)) == dash),
                    lines.pos(cm)[0])
        row = lines.row(item)
        key_col = dash + 2 + _indent(row[dash + 2:])
        return (f"line {line + 1} is indented to column {_indent(lines.row(line)) + 1}, but the "
                f"list item starting at line {item + 1} has its keys at column {key_col + 1}: "
                "indent it to line up with them, or start a new item with '- '")
    if "did not find expected key" in problem and cm is not None:
        found = _between_levels(lines, line, lines.pos(cm))
        if found is not None:
            return found
    for opener, closer, what in (("[", "]", "list"), ("{", "}", "mapping")):
        if f"expected ',' or '{closer}'" in problem and cm is not None:
            ol, oc = lines.pos(cm)
            return (f"the {what} `{opener}` opened at line {ol + 1}, column {oc + 1} is not "
                    f"closed with `{closer}` (or a comma is missing between its items)")
    if "mapping values are not allowed" in problem:
        row = lines.row(line)
        first = row.find(": ")
        if 0 <= first < col:  # a second `: ` on a `key: value` line
            return (f"the value on line {line + 1} contains ': ', which YAML reads as another "
                    "key; quote the value (key: \"text: with a colon\")")
        above = next((i for i in range(line - 1, -1, -1) if lines.row(i).strip()), None)
        if above is not None:
            return (f"line {line + 1} is indented under the key on line {above + 1}, which "
                    "already has a value on its line: line it up with the keys above, or put "
                    "the value on the lines below that key")
    return None


def _between_levels(lines: _EditorLines, line: int, mapping: tuple[int, int]) -> str | None:
    """A key indented past the keys of its mapping (at `mapping`) but short of the keys of the
    block nested under the key above it (`     other: 1` between columns 5 and 7)."""
    at, keys = mapping
    indent = _indent(lines.row(line))
    if indent <= keys:
        return None
    start = lines.row(at)
    what = (f"the list item starting at line {at + 1}" if start[:keys].rstrip().endswith("-")
            else f"the mapping starting at line {at + 1}")
    said = (f"line {line + 1} is indented to column {indent + 1}, but {what} has its keys at "
            f"column {keys + 1}")
    nested = None  # (line of the key the deeper block is under, column of its keys)
    for i in range(line - 1, at, -1):
        row = lines.row(i)
        if not row.strip() or row.lstrip().startswith("#"):
            continue
        if _indent(row) == keys:
            break
        if _indent(row) > indent:
            nested = (i, _indent(row))
    if nested is not None:
        owner = next(i for i in range(nested[0] - 1, at - 1, -1)
                     if lines.row(i).strip() and _indent(lines.row(i)) < nested[1])
        said += (f" and the keys under the key on line {owner + 1} are at column "
                 f"{nested[1] + 1}")
    return said + ": line it up with the keys it belongs with"
