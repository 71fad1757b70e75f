"""`parse_module(source)`: exactly `ast.parse(source)`, parsed one top-level statement at a time.

One `ast.parse` of a 10,000-line step file is a single C call that holds the GIL for its whole
length (about half a second here): any thread doing it stalls every other thread, the
language server's event loop included. Parsed chunk by chunk (the validator's textual split,
validator/chunks.py), other threads run between statements. The tree is the same, positions
included (tests/workspace/test_pyparse.py compares the dumps with `ast.parse`'s on generated
and real sources). Whenever the split cannot be trusted, the whole-file parse answers: a chunk
that does not parse (a split inside a multi-line construct, or a real syntax error: then its
error is the whole-file parse's), `__future__` imports (one can change the grammar), a lone
`\\r` line end.
"""

from __future__ import annotations

import ast

from stepsmith.runner.validator.astlock import AST_LOCK
from stepsmith.runner.validator.chunks import split

# below this size one parse is short enough (a few milliseconds)
WHOLE_BELOW = 8_000


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse`, holding the process's AST lock (validator/astlock.py: two threads
    building trees at once can fail on CPython 3.11)."""
    with AST_LOCK:
        return ast.parse(source, filename)


def parse_module(source: str) -> ast.Module:
    """`ast.parse(source)`, without holding the GIL for the whole file (see the module doc);
    raises what `ast.parse` raises."""
    if len(source) < WHOLE_BELOW or "__future__" in source:
        return parse(source)
    chunks = split(source)
    if chunks is None:
        return parse(source)
    body: list[ast.stmt] = []
    for text, line in chunks:
        try:
            part = parse(text)
        except (SyntaxError, ValueError):
            return parse(source)
        if line:
            ast.increment_lineno(part, line)
        body.extend(part.body)
    return ast.Module(body=body, type_ignores=[])
