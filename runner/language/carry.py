"""Lines of a traced text carried onto the text being edited.

A trace (coverage, values) belongs to the exact text a sandbox ran. While the author types,
the buffer moves on; a line that is still there, unchanged, keeps what the trace said of it
(at its new number), a changed or new line has nothing. difflib's matching blocks over whole
lines give that map: cheap, and never guesses for a line that changed.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from stepsmith.runner.lines import split_lines, strip_eol


def line_map(old: str, new: str) -> Mapping[int, int]:
    """{old 1-based line: new 1-based line} for the lines unchanged between the two texts."""
    if old == new:
        n = len(split_lines(new))
        return {i: i for i in range(1, n + 1)}
    a = [strip_eol(x) for x in split_lines(old)]
    b = [strip_eol(x) for x in split_lines(new)]
    out: dict[int, int] = {}
    for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            out[block.a + k + 1] = block.b + k + 1
    return out


def carried(old: str, new: str, line: int) -> int | None:
    """Where `line` of `old` is in `new`, or None when it changed."""
    return line_map(old, new).get(line)
