"""Completion items and their placement: an `Item` carries the exact edit it makes; a
`Candidate` is a completion before it is placed (completion.py explains the range)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from stepsmith.runner.problems import Span

#: what Vim's default 'iskeyword' and VS Code's word pattern both treat as one word
_WORD_TAIL = re.compile(r"\w*\Z")
_SNIPPET_FIELD = re.compile(r"\$\{\d+:([^}]*)\}|\$\d+()")


@dataclass(frozen=True)
class Item:
    label: str
    kind: str  # "property" | "value" | "reference" | "file" | "function" | "module" | "snippet" | "variable"
    new_text: str
    range: Span  # the text this item replaces (single line, ends at the cursor)
    filter_text: str
    detail: str = ""
    documentation: str = ""
    snippet: bool = False  # new_text is an LSP snippet ($1, ${2:x})
    sort_text: str = ""


@dataclass(frozen=True)
class Candidate:
    """A completion before it is placed: `full` is the whole token it completes to."""

    full: str
    kind: str
    label: str = ""
    detail: str = ""
    documentation: str = ""
    snippet: bool = False


def word_start(token: str) -> int:
    """Offset in `token` where its last word starts (the client's completion boundary)."""
    return len(token) - len(_WORD_TAIL.search(token).group(0))


def items_for(candidates: Iterable[Candidate], line: int, token_start: int,
              token: str) -> list[Item]:
    """Place candidates completing `token` (typed from column `token_start` up to the cursor).
    A candidate that does not start with the part typed before the last word is dropped."""
    cut = word_start(token)
    typed, start = token[:cut], token_start + cut
    span = Span(line, start, line, token_start + len(token))
    out, seen = [], set()
    for n, c in enumerate(candidates):
        if not c.full.startswith(typed) or c.full == typed or c.full in seen:
            continue  # (all of it typed already: nothing to insert)
        seen.add(c.full)
        text = c.full[len(typed):]
        shown = _SNIPPET_FIELD.sub(r"\1", text) if c.snippet else text
        out.append(Item(c.label or c.full, c.kind, text, span, shown, c.detail, c.documentation,
                        c.snippet, f"{n:04d}"))
    return out
