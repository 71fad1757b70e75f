"""The one display-text filter: what workflow data may put on a terminal or into a report.

Workflow data is hostile (a cloned folder's file names, a step's error message, traceback text
and print() output): with raw control characters it drives the reader's terminal. rich strips
BEL/BS/VT/FF/CR but keeps ESC, so ESC-introduced sequences got through: OSC 52 writes the
clipboard, OSC 8 plants links, `ESC[1A ESC[2K` erases a FAILED line and draws a fake PASSED;
C1 controls (U+0080-U+009F, e.g. U+009B, a one-character CSI) do the same on terminals that
honour them. The same characters made `--junit-xml` a file XML parsers reject.

`display_text` shows every C0 control but newline and tab, DEL, every C1 control, lone
surrogates (they cannot be encoded, so printing one crashed the command) and the two
non-characters XML 1.0 forbids (U+FFFE, U+FFFF) as a visible escape (`\\x1b`, `\\x9b`,
`\\ud800`, `\\ufffe`): the reader sees what the data held, and nothing it held is obeyed. The
result is also legal XML 1.0 character data. Applied at the rendering edge: the CLI's consoles
(runner/cli/console.py), its plain prints, JUnit XML and the pytest plugin's reports.
`json_text` does the same for JSON a command prints, as JSON escapes (the value is unchanged).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

_CONTROLS = [c for c in range(0x20) if c not in (0x09, 0x0A)] + [0x7F] + list(range(0x80, 0xA0))
_TABLE = {c: f"\\x{c:02x}" for c in _CONTROLS}
_TABLE.update({c: f"\\u{c:04x}" for c in range(0xD800, 0xE000)})
_TABLE.update({0xFFFE: "\\ufffe", 0xFFFF: "\\uffff"})
_JSON_TABLE = {c: f"\\u{c:04x}" for c in [0x7F, *range(0x80, 0xA0), 0xFFFE, 0xFFFF]}
#: the characters of _JSON_TABLE: a document holds them rarely, and looking for each (a C scan)
#: is much cheaper than str.translate's table look-up of every character (`test --format json`
#: of 240 fixtures: ~145 ms)
_JSON_CHARS = tuple(chr(c) for c in _JSON_TABLE)


def display_text(text: object) -> str:
    """`text` (anything: str() of it) safe for a terminal and for XML 1.0 character data."""
    return str(text).translate(_TABLE)


def json_text(text: str) -> str:
    """JSON text (as `json.dumps(..., ensure_ascii=False)` writes it) with DEL, C1 and the XML
    non-characters as `\\u` escapes: these occur only inside JSON strings and mean the same
    escaped, so the document's value is unchanged. (json.dumps already escapes C0.)"""
    if any(c in text for c in _JSON_CHARS):
        return text.translate(_JSON_TABLE)
    return text


def safe_print(*parts: object, sep: str = " ", end: str = "\n", file=None,
               flush: bool = False) -> None:
    """print() through `display_text` (the CLI modules that print plain lines import it AS
    print, so no line of theirs can bypass the filter)."""

    out = sys.stdout if file is None else file
    out.write(display_text(sep.join(str(p) for p in parts)) + end)
    if flush:
        out.flush()


def display_path(p: Path, base: Path | None = None) -> str:
    """`p` relative to `base` (the current folder) when it lies under it, else as given."""
    base = base or Path.cwd()
    if not p.is_absolute():
        return str(p)
    try:
        rel = os.path.relpath(p, base)
    except ValueError:
        return str(p)
    return str(p) if rel.startswith("..") else rel
