"""Split a step file into its top-level statements *without parsing*, so unchanged ones can be
served from a cache (the language server validates the whole buffer on every keystroke).

Every rule is local to one top-level statement, so validating each chunk on its own with its
line offset gives exactly the whole-file result. The split is textual: a chunk starts at a
line whose first character is not whitespace, `#` or a closing bracket (decorator lines stay
with their `def`; `else/elif/except/finally` stay with their statement). A wrong split can
only happen inside a multi-line construct (string, brackets, backslash continuation), and
then the chunk *before* the split is unterminated, so it fails to parse; the caller then
parses it together with the following chunks (a few), and falls back to one whole-file parse
when that does not help either (a real syntax error). A chunk that parses ends with the
tokenizer in a clean state at a column-0 line, so Python reads the whole file as the
concatenation of the chunks' statements. tests/validator/test_validator_locality.py checks
the chunked and whole-file results are identical.
"""

from __future__ import annotations

_NOT_A_START = frozenset("#)]}")
_CONTINUATION = ("else", "elif", "except", "finally")


def _statement_starts(text: str) -> list[int]:
    """Offsets of the lines whose first character is not whitespace (`str.isspace`, as the
    regex `\\s`), `#` or a closing bracket, and do not follow a backslash continuation.
    Lines are split on `\\n` only (like `^` with re.MULTILINE). No `re`: it is not imported
    inside the sandbox (and this is faster)."""
    out = []
    pos = 0
    continued = False
    for line in text.split("\n"):
        if line and not continued:
            ch = line[0]
            if not (ch.isspace() or ch in _NOT_A_START):
                out.append(pos)
        # after a backslash continuation no statement starts (CPython parses "x\\\r\n"
        # alone, so the chunk before would wrongly pass as finished); a backslash in a comment
        # or string only merges two chunks, which is always safe
        continued = line.endswith(("\\", "\\\r"))
        pos += len(line) + 1
    return out


def _is_continuation(text: str, start: int) -> bool:
    """`else`/`elif`/`except`/`finally` at `start`, as a whole word (regex `\\b`)."""
    for word in _CONTINUATION:
        if text.startswith(word, start):
            end = start + len(word)
            return end >= len(text) or not _is_word_char(text[end])
    return False


def _is_word_char(ch: str) -> bool:  # the regex `\\w` for str patterns
    return ch.isalnum() or ch == "_"


def split(text: str) -> list[tuple[str, int]] | None:
    """[(chunk text, 0-based line of its first line)], concatenating back to `text`; None when
    the text is not suited to a textual split (lone `\\r` line ends)."""
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return None
    bounds = [0]
    pending_decorator = False
    first = True
    for start in _statement_starts(text):
        is_decorator = text.startswith("@", start)
        if first:  # the first statement joins chunk 0 with any leading comments
            first = False
            pending_decorator = is_decorator
            continue
        if pending_decorator:  # decorators and the def they decorate stay together
            pending_decorator = is_decorator
            continue
        if _is_continuation(text, start):
            continue
        bounds.append(start)
        pending_decorator = is_decorator
    chunks = []
    line = 0
    for i, start in enumerate(bounds):
        end = bounds[i + 1] if i + 1 < len(bounds) else len(text)
        chunk = text[start:end]
        chunks.append((chunk, line))
        line += chunk.count("\n")
    return chunks
