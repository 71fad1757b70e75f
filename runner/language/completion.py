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

from stepsmith.runner.workspace.diagnostics import is_manifest_path

from .completion_items import Candidate, Item, items_for, word_start
from .completion_manifest import manifest_items
from .completion_steps import step_items

__all__ = ["Candidate", "Item", "complete", "items_for", "word_start"]


def complete(snapshot, path: str, line: int, column: int) -> list[Item]:
    """Completion items at (1-based line, code-point column) of `path` (manifest or step file)."""

    text = snapshot.read_text(path)
    if text is None or len(text) > snapshot.max_file_size:
        return []  # unreadable, refused (a symlink out of the folder) or too large to serve
    if is_manifest_path(path):
        return manifest_items(snapshot, path, line, column)
    buf = snapshot.buffer(path)
    if path.endswith(".py") or (buf is not None and buf.language_id == "python"):
        return step_items(snapshot, path, line, column)
    return []
