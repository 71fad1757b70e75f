"""Workflow data inside Markdown (hovers, cards): the one escaping helper (issue 18, item 4).

A cloned folder controls names, values, descriptions and explanations. Put raw into Markdown,
a value holding a backtick ends its code span and the rest renders: links (`command:` ones),
remote images (a tracking pixel in a hover), HTML. So every piece of workflow data goes through
one of these, by the CommonMark rules (checked against markdown-it-py in
tests/language/test_markdown_escaping.py; vscode-extension/src/markdown.ts is the client's twin):

- `code(text)`: an inline code span delimited by a backtick run longer than any in the text,
  padded with a space when the text starts or ends with a backtick or space (CommonMark strips
  exactly one such space on each side); line breaks become spaces (a blank line would end the
  paragraph, and the span with it).
- `fence(text, info)`: a fenced block whose fence is longer than any backtick run in the text.
- `plain(text)`: backslash escapes (CommonMark allows one before any ASCII punctuation) on
  every character that can open or close a construct anywhere (\\ ` * _ [ ] < > & | ~), and on
  the ones that do so only at the start of a line (# + - = and the `.`/`)` of `1.`), so no
  emphasis, link, image, autolink, HTML, entity, heading, list, quote, table or fence can form;
  ordinary prose (periods, commas, colons, parentheses, hyphens inside words) stays readable.
"""

from __future__ import annotations

import re

_RUNS = re.compile(r"`+")
_NEWLINES = re.compile(r"\r\n|\r|\n")
# `_` between two ASCII letters/digits can neither open nor close emphasis (CommonMark's
# flanking rules): left as is, so identifiers like invoice_id stay readable in the raw text
_ANYWHERE = re.compile(r"([\\`*\[\]<>&|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
_BLOCK_START = re.compile(r"^([ \t]*)([#+=-])", re.MULTILINE)
_ORDERED = re.compile(r"^([ \t]*\d{1,9})([.)])", re.MULTILINE)


def _clean(text: object) -> str:
    # CommonMark replaces NUL by U+FFFD; do it here so what is shown is what we meant
    return str(text).replace("\0", "\ufffd")


def longest_backtick_run(text: str) -> int:
    return max((len(m.group()) for m in _RUNS.finditer(text)), default=0)


def code(text: object) -> str:
    """`text` as one inline code span, whatever it holds."""
    s = _NEWLINES.sub(" ", _clean(text))
    if not s:
        return "` `"
    ticks = "`" * (longest_backtick_run(s) + 1)
    pad = " " if (s[0] in "` " or s[-1] in "` ") and s.strip(" ") else ""
    return f"{ticks}{pad}{s}{pad}{ticks}"


def fence(text: object, info: str = "") -> str:
    """`text` as a fenced code block (`info`: the language, ours, never workflow data)."""
    s = _NEWLINES.sub("\n", _clean(text))
    ticks = "`" * max(3, longest_backtick_run(s) + 1)
    body = s if s.endswith("\n") or not s else s + "\n"
    return f"{ticks}{info}\n{body}{ticks}"


def plain(text: object) -> str:
    """`text` shown as written: no Markdown construct can form from it."""
    # a lone CR ends a line for CommonMark but not for `^` here: normalise first
    s = _ANYWHERE.sub(r"\\\1", _NEWLINES.sub("\n", _clean(text)))
    s = _ORDERED.sub(r"\1\\\2", s)
    return _BLOCK_START.sub(r"\1\\\2", s)


def names(values) -> str:
    """A comma-separated list of code spans, or "none"."""
    return ", ".join(code(v) for v in values) if values else "none"
