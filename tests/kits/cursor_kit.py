"""The `|` cursor marker of the cursor-marker tests: one reading for the pure services
(tests/language) and the LSP suites (tests/server, which convert to UTF-16). tests/conftest.py
makes it importable as `cursor_kit` from every suite."""

from __future__ import annotations


def cursor(marked: str) -> tuple[str, int, int]:
    """The text without its `|`, and the 1-based line / code-point column of the `|`."""
    i = marked.index("|")
    before = marked[:i]
    return marked[:i] + marked[i + 1:], before.count("\n") + 1, i - (before.rfind("\n") + 1)
