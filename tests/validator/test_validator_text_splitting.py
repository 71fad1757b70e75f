"""`chunks.split` and `positions` split text by hand (the validator does not import `re`: it
runs inside every sandbox). Pinned against the regular expressions they replaced, on random
texts built from the characters that matter (line ends, Unicode whitespace, brackets,
`else`-like words)."""

import random
import re

from stepsmith.runner.validator import chunks
from stepsmith.runner.validator.positions import Positions

_STATEMENT_START = re.compile(r"^(?=[^\s#)\]}])", re.MULTILINE)
_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b")
_NEWLINE = re.compile(r"\r\n|\r|\n")

PIECES = ["\n", "\r\n", "\r", " ", "\t", "\x0c", "\x0b", "\x1c", "\x85", "\xa0", "\u2028",
          "\u3000", "#", ")", "]", "}", "@", "else", "elif", "except", "finally", "els", "x",
          "_", "é", "١", "²", "def f():\n    pass\n", "(", ":", "exceptional", "else:",
          "finally_", "\n\n"]


def reference_split(text):
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return None
    bounds, pending, first = [0], False, True
    for m in _STATEMENT_START.finditer(text):
        start = m.start()
        deco = text.startswith("@", start)
        if first:
            first, pending = False, deco
            continue
        if pending:
            pending = deco
            continue
        if _CONTINUATION.match(text, start):
            continue
        bounds.append(start)
        pending = deco
    out, line = [], 0
    for i, start in enumerate(bounds):
        chunk = text[start:bounds[i + 1] if i + 1 < len(bounds) else len(text)]
        out.append((chunk, line))
        line += chunk.count("\n")
    return out


def reference_offset(text, index):
    lineno, line_start = 1, 0
    for m in _NEWLINE.finditer(text, 0, index):
        lineno += 1
        line_start = m.end()
    return lineno, index - line_start


def _texts(n, seed):
    rnd = random.Random(seed)
    for _ in range(n):
        yield "".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 25)))


def test_split_matches_the_regex_version():
    for text in _texts(20000, 1):
        assert chunks.split(text) == reference_split(text), repr(text)


def test_lines_and_offsets_match_the_regex_version():
    for text in _texts(3000, 2):
        pos = Positions(text)
        assert pos.lines == _NEWLINE.split(text), repr(text)
        for i in range(len(text) + 1):
            sp = pos.offset_to_span(i)
            assert (sp.line, sp.column) == reference_offset(text, i), (repr(text), i)
