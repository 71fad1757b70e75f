"""Open documents: text kept as editor lines, incremental edits, position encodings.

LSP positions count `character` in the negotiated encoding (UTF-16 code units by default,
UTF-8 bytes when negotiated); Problems count code points (conversion: server/convert.py). Lines end only at \\r\\n, \\r or \\n (as in editors) — never `str.splitlines`, which
also splits on \\x0b, \\x1c, \\u2028 and friends.

Invalid positions are clamped the way editors do: a line past the end means the end of the
document, a character past the end of a line means the end of that line (before its line
ending), a position inside a surrogate pair / UTF-8 sequence is rounded down to the character.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from stepsmith.runner.lines import split_lines
from stepsmith.runner.lines import strip_eol as _strip_eol
from stepsmith.runner.workspace.snapshot import Buffer
from stepsmith.server.convert import UTF8, UTF16, UTF32, to_codepoints

__all__ = ["UTF8", "UTF16", "UTF32", "Document", "DocumentStore", "Snapshot"]


@dataclass(frozen=True)
class Snapshot:
    uri: str
    version: int | None
    text: str
    lines: tuple[str, ...]
    language_id: str


class Document:
    __slots__ = ("_buffer", "_text", "language_id", "lines", "uri", "version")

    def __init__(self, uri: str, language_id: str, version: int | None, text: str) -> None:
        self.uri = uri
        self.language_id = language_id
        self.version = version
        self.lines = split_lines(text)
        self._text: str | None = text
        self._buffer: Buffer | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(self.lines)
        return self._text

    def line_text(self, line: int) -> str:
        """Line (0-based) without its ending; '' past the end."""
        if 0 <= line < len(self.lines):
            return _strip_eol(self.lines[line])
        return ""

    def offset_pos(self, line: int, character: int, encoding: str) -> tuple[int, int]:
        """Clamp an LSP position; return (line index, code point column)."""
        n = len(self.lines)
        if line < 0:
            return 0, 0
        if line >= n:
            last = n - 1
            return last, len(_strip_eol(self.lines[last]))
        return line, to_codepoints(_strip_eol(self.lines[line]), character, encoding)

    def apply(self, start: tuple[int, int] | None, end: tuple[int, int] | None, new_text: str,
              encoding: str) -> None:
        """Apply one change. `start`/`end` are LSP (line, character); None = whole document."""
        self._buffer = None
        if start is None or end is None:
            self.lines = split_lines(new_text)
            self._text = new_text
            return
        sl, sc = self.offset_pos(start[0], start[1], encoding)
        el, ec = self.offset_pos(end[0], end[1], encoding)
        if (el, ec) < (sl, sc):  # reversed range: editors treat it as empty at start
            el, ec = sl, sc
        lines = self.lines
        # Re-split one line either side so \r + \n joined by the edit become one line break.
        a = max(0, sl - 1)
        b = min(len(lines), el + 2)
        before = "".join(lines[a:sl]) + lines[sl][:sc]
        after = lines[el][ec:] + "".join(lines[el + 1 : b])
        region = before + new_text + after
        new_lines = split_lines(region)
        if b < len(lines) and new_lines and new_lines[-1] == "":
            new_lines.pop()  # region ended with a line break; the next line follows
        lines[a:b] = new_lines
        if not lines:
            lines.append("")
        self._text = None

    def snapshot(self) -> Snapshot:
        b = self.buffer()
        return Snapshot(self.uri, b.version, b.text, b.lines, self.language_id)

    def buffer(self) -> Buffer:
        """The frozen text at the current version (kept until the next edit)."""
        b = self._buffer
        if b is None or b.version != self.version:
            b = self._buffer = Buffer(self.text, self.version, tuple(self.lines), self.language_id)
        return b


class DocumentStore:
    """Thread-safe map uri -> Document. Mutated on the event loop; snapshots read anywhere."""

    def __init__(self) -> None:
        self._docs: dict[str, Document] = {}
        self.lock = threading.Lock()

    def open(self, uri: str, language_id: str, version: int | None, text: str) -> Document:
        with self.lock:
            doc = Document(uri, language_id, version, text)
            self._docs[uri] = doc
            return doc

    def close(self, uri: str) -> None:
        with self.lock:
            self._docs.pop(uri, None)

    def get(self, uri: str) -> Document | None:
        return self._docs.get(uri)

    def __contains__(self, uri: str) -> bool:
        return uri in self._docs

    def uris(self) -> list[str]:
        return list(self._docs)

    def snapshot(self, uri: str) -> Snapshot | None:
        with self.lock:
            doc = self._docs.get(uri)
            return doc.snapshot() if doc is not None else None

    def version(self, uri: str) -> int | None:
        doc = self._docs.get(uri)
        return doc.version if doc is not None else None
