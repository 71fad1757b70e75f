"""Completion over a WorkspaceSnapshot: items that carry the exact edit they make.

`complete(snapshot, path, line, column)` -> [Item] in runner coordinates (1-based line,
code-point columns). Every item replaces `range` (on the cursor's line, ending at the cursor)
with `new_text`; `filter_text` is `new_text` (a snippet's without its `${1:...}` markers).

Why the range starts at the last WORD before the cursor (`sources.|inv` -> `invoices`, not
`|sources.inv` -> `sources.invoices`): clients disagree on where a completion starts. Neovim's
omnifunc ignores a textEdit's start as soon as an item has a `filterText` and starts at its
keyword boundary (`\\k*$`: letters, digits, `_`), filtering the inserted text by what was typed
after it; VS Code filters `filterText` against the text in the range. Starting the range exactly
at that boundary makes both insert the same text. What was typed before the word (`sources.`,
`steps/`, `steps/match.py:`) must be a prefix of the candidate; the rest of it is inserted.

Manifests: completion_manifest.py (the YAML context: completion_context.py); step files:
completion_steps.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from stepsmith.runner.problems import Span

__all__ = ["Candidate", "Item", "complete", "items_for", "word_start"]

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


def complete(snapshot, path: str, line: int, column: int) -> list[Item]:
    """Completion items at (1-based line, code-point column) of `path` (manifest or step file)."""
    from stepsmith.runner.workspace.diagnostics import is_manifest_path

    text = snapshot.read_text(path)
    if text is None or len(text) > snapshot.max_file_size:
        return []  # unreadable, refused (a symlink out of the folder) or too large to serve
    if is_manifest_path(path):
        from .completion_manifest import manifest_items

        return manifest_items(snapshot, path, line, column)
    buf = snapshot.buffer(path)
    if path.endswith(".py") or (buf is not None and buf.language_id == "python"):
        from .completion_steps import step_items

        return step_items(snapshot, path, line, column)
    return []
