"""`stepsmith check --diff`: the fixes as the patch git writes (`git diff`), so `git apply` and
`patch -p1` apply it as it is.

What git does and difflib alone does not (each broke a real patch): the `\\ No newline at end
of file` marker after a last line without one ("corrupt patch" without it); a name that needs
quoting written as git C-quotes it, prefix included (`"a/nl\\nfolder/x.py"`: a raw newline
splits the header); a TAB after a `---`/`+++` name holding a space (GNU patch cuts the name at
the first space otherwise); the `diff --git` and `index` lines; and a hunk header followed by
the nearest line above the hunk that starts like a definition (git's default funcname).
Lines are split at "\\n" only, as git does: a form feed or U+2028 inside a line is content.
tests/reference/test_ci_diff_reference.py compares it with `git diff --no-index` byte for byte.
"""

from __future__ import annotations

import difflib
import hashlib

CONTEXT = 3
_FUNC_BYTES = 80  # git's funcname buffer: the header shows at most this many bytes
#: git's quote.c: control characters with a letter escape; other bytes below 0x20, DEL and
#: every byte from 0x80 (core.quotePath, on by default) as three octal digits
_LETTER = {0x07: "a", 0x08: "b", 0x09: "t", 0x0A: "n", 0x0B: "v", 0x0C: "f", 0x0D: "r",
           0x22: '"', 0x5C: "\\"}


def quote_path(name: str) -> bytes:
    """`name` as git writes it in a patch header: as is, or C-quoted when any byte needs it."""
    raw = name.encode("utf-8", "surrogateescape")
    if not any(b < 0x20 or b >= 0x7F or b in (0x22, 0x5C) for b in raw):
        return raw
    out = bytearray(b'"')
    for b in raw:
        if b in _LETTER:
            out += b"\\" + _LETTER[b].encode()
        elif b < 0x20 or b >= 0x7F:
            out += b"\\%03o" % b
        else:
            out.append(b)
    return bytes(out + b'"')


def _lines(text: str) -> list[bytes]:
    data = text.encode("utf-8", "surrogateescape")
    parts = data.split(b"\n")
    lines = [p + b"\n" for p in parts[:-1]]
    return lines + [parts[-1]] if parts[-1] else lines


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()[:7]


def _funcname(old: list[bytes], before: int) -> bytes:
    """git's default funcname: the nearest line above index `before` starting with an ASCII
    letter, `_` or `$`, cut at 80 bytes, trailing whitespace dropped."""
    for i in range(before - 1, -1, -1):
        line = old[i]
        if line[:1].isalpha() or line[:1] in (b"_", b"$"):  # bytes: ASCII letters only
            return line[:_FUNC_BYTES].rstrip(b" \t\n\v\f\r")
    return b""


def _range(start: int, length: int) -> bytes:
    if length == 1:
        return b"%d" % (start + 1)
    return b"%d,%d" % (start + 1 if length else start, length)


def _body(lines: list[bytes], sign: bytes) -> bytes:
    out = b""
    for line in lines:
        out += sign + line
        if not line.endswith(b"\n"):
            out += b"\n\\ No newline at end of file\n"
    return out


def file_patch(shown: str, original: str, fixed: str, mode: int = 0o100644) -> bytes:
    """The patch of one file (git's `diff --git a/<shown> b/<shown>`), b"" when unchanged."""
    old, new = _lines(original), _lines(fixed)
    if old == new:
        return b""
    a, b = quote_path("a/" + shown), quote_path("b/" + shown)
    tab_a, tab_b = (b"\t" if b" " in q else b"" for q in (a, b))
    old_id = _blob_id(b"".join(old))
    new_id = _blob_id(b"".join(new))
    out = (b"diff --git " + a + b" " + b + b"\n" + b"index %s..%s %o\n" % (
        old_id.encode(), new_id.encode(), mode)
        + b"--- " + a + tab_a + b"\n" + b"+++ " + b + tab_b + b"\n")
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        func = _funcname(old, i1)
        out += (b"@@ -" + _range(i1, i2 - i1) + b" +" + _range(j1, j2 - j1) + b" @@"
                + (b" " + func if func else b"") + b"\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += _body(old[a1:a2], b" ")
                continue
            out += _body(old[a1:a2], b"-")
            out += _body(new[b1:b2], b"+")
    return out
