"""Editor lines and the top-level functions of a step file, by text (no parse).

Lines end only at \\r\\n, \\r or \\n, as in editors (LSP) — never `str.splitlines`, which also
splits on \\x0b, \\x1c, \\u2028 and friends. A top-level statement starts at a line beginning
in column 0 with a character that can start one (not blank, a comment, a closing bracket or
`else`/`elif`/`except`/`finally`); the validator's own split (validator/chunks.py) uses the
same rule to cache statements.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

_NEWLINE_RE = re.compile(r"\r\n|\r|\n")
_NOT_START = frozenset(" \t\f\r\n#)]}\\\x0b")
_CONTINUATIONS = ("else", "elif", "except", "finally")
_DEF_RE = re.compile(r"(?:async[ \t]+)?def[ \t]+(\w+)")
# `def name` anywhere (a literal prefix: the regex engine skips to each "def" fast); whether it
# starts its line (after an optional `async`) is checked on the line's own text
_ANY_DEF_RE = re.compile(r"def[ \t]+\w+")
_ASYNC_RE = re.compile(r"async[ \t]+")
_HEADER_LINES = 20


def split_lines(text: str) -> list[str]:
    """Split like an editor (LSP): only \\r\\n, \\r and \\n end lines; endings are kept."""
    if not text:
        return [""]
    out: list[str] = []
    pos = 0
    for m in _NEWLINE_RE.finditer(text):
        out.append(text[pos : m.end()])
        pos = m.end()
    out.append(text[pos:])  # last line (possibly empty)
    return out


def strip_eol(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith(("\n", "\r")):
        return line[:-1]
    return line


def _is_start(line: str) -> bool:
    c = line[:1]
    if not c or c in _NOT_START:
        return False
    if c in "eEf" and line.startswith(_CONTINUATIONS):
        for word in _CONTINUATIONS:
            if line.startswith(word):
                nxt = line[len(word) : len(word) + 1]
                if not (nxt.isalnum() or nxt == "_"):
                    return False
    return True


def chunk_starts(lines: Sequence[str]) -> list[int]:
    """0-based indices of the lines where top-level statements start (always begins with 0)."""
    starts = [0]
    for i in range(1, len(lines)):
        if _is_start(lines[i]) and not strip_eol(lines[i - 1]).endswith("\\"):
            starts.append(i)
    return starts


@dataclasses.dataclass(frozen=True)
class FunctionSpan:
    """A top-level `def` in a step file: name and 1-based inclusive line range."""

    name: str
    line: int  # the `def` line (1-based)
    column: int  # column of the name on that line
    end_line: int  # last line of its statement (1-based, inclusive)


def function_spans(text: str, lines: Sequence[str] | None = None) -> list[FunctionSpan]:
    """Top-level functions of a step file by line (cheap, text-based; no parse)."""
    if lines is None:
        lines = split_lines(text)
    starts = chunk_starts(lines)
    bounds = starts + [len(lines)]
    out = []
    for k, s in enumerate(starts):
        m = _DEF_RE.match(lines[s])
        if m:
            out.append(FunctionSpan(m.group(1), s + 1, m.start(1), bounds[k + 1]))
    return out


def signature_fingerprint(text: str, with_lines: bool = False) -> tuple:
    """What the workflow check reads from a step file, by text: each top-level `def` line with
    its header up to the line ending in `:` (at most 20 lines), and with `with_lines` its line.
    A change detector for the keystroke path (one regex scan, no line split): a `def` at the
    start of a line inside a string only adds an entry, so it can cause an extra re-check,
    never miss one."""
    out = []
    line, counted = 1, 0
    for m in _ANY_DEF_RE.finditer(text):
        start = max(text.rfind("\n", 0, m.start()), text.rfind("\r", 0, m.start())) + 1
        if start != m.start() and not _ASYNC_RE.fullmatch(text, start, m.start()):
            continue  # not at the start of its line
        if with_lines:  # line breaks before `start` (a \r\n never straddles a line start)
            seg = text[counted:start]
            line += seg.count("\n") + seg.count("\r") - seg.count("\r\n")
            counted = start
        header, pos = [], start
        for _ in range(_HEADER_LINES):
            nl = _NEWLINE_RE.search(text, pos)
            end = nl.start() if nl else len(text)
            header.append(text[pos:end].rstrip())
            if header[-1].endswith(":") or nl is None:
                break
            pos = nl.end()
        out.append(("\n".join(header), line if with_lines else 0))
    return tuple(out)
