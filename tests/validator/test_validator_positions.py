"""Columns are code points of the line (Python str indices), never UTF-8 bytes, whatever
non-ASCII text precedes the violation; line_offset shifts lines only."""

from __future__ import annotations

import pytest
from stepsmith.runner.problems import Span
from stepsmith.runner.validator import validate

CASES = [
    # (line 2 of `def f(x, c):`, expected code, (col, end_col))
    ("    s = 'ééé'; return x._y", "SS201", (24, 26)),
    ("    s = '😀'; return x.__class__", "SS201", (22, 31)),  # astral: 1 code point, 4 bytes
    ("    s = 'e\u0301'; return x._y", "SS201", (23, 25)),  # combining accent: 2 code points
    ("    café = x; return café.__dict__", "SS201", (26, 34)),  # non-ASCII identifier
    ("    return x._\uff3fclass\uff3f\uff3f", "SS201", (13, 22)),  # NFKC-normalised attribute
    ("    return x.__\uff43\uff4c\uff41\uff53\uff53__", "SS201", (13, 22)),
    ("    return 'ü', __builtins__", "SS202", (16, 28)),
    ("    return 'ü', dict(__class__=1)", "SS202", (21, 30)),
    ("    return 'ü', getattr(x, 'gi_frame')", "SS204", (27, 37)),
    ("    return 'ü', '{0.__class__}'.format(x)", "SS205", (16, 31)),
    ("    return 'ü', type('C', (), {})", "SS302", (16, 33)),
    ("    return 'ü', eval", "SS301", (16, 20)),
    ("    return 'ü', x.gi_frame", "SS303", (18, 26)),
    ("    return 'ü', x.samples(3)", "SS501", (18, 25)),
    ("    return 'ü', c.format(x)", "SS206", (18, 24)),
    ("    import json as __ü", "SS202", (19, 22)),
    ("    from json import codecs as ü", "SS305", (21, 27)),
    ("    global ü", "SS403", (4, 12)),
    ("    return '中文', x._y", "SS201", (19, 21)),
    ("    return '中文' $", "SS001", (16, 17)),
]


@pytest.mark.parametrize("line,code,cols", CASES, ids=[c[1] + "-" + str(i) for i, c in enumerate(CASES)])
def test_column_counts_code_points(line, code, cols):
    source = f"def f(x, c):\n{line}\n"
    hits = [p for p in validate(source) if p.code == code]
    assert hits, [(p.code, p.message) for p in validate(source)]
    assert hits[0].span == Span(2, cols[0], 2, cols[1]), hits[0].message
    assert source.splitlines()[1][cols[0]:cols[1]] or code == "SS001"


def test_match_class_keyword_span_after_non_ascii():
    source = "def f(x):\n    match x:\n        case dict(ñ=1, __class__=c):\n            return c\n"
    (p,) = [p for p in validate(source) if p.code == "SS201"]
    line = source.splitlines()[2]
    assert p.span == Span(3, line.index("__class__"), 3, line.index("__class__") + 9)


def test_multiline_node_end_column_is_converted_on_its_own_line():
    source = "def f(x):\n    return type(\n        'Ünïcödé', (), {}\n    )\n"
    (p,) = validate(source)
    assert p.code == "SS302" and p.span == Span(2, 11, 4, 5)


def test_byte_input_gives_the_same_columns_as_text():
    text = "def f(x):\n    s = 'ééé'; return x._y\n"
    assert validate(text.encode()) == validate(text)


def test_line_offset_shifts_lines_not_columns():
    text = "def f(x):\n    s = 'ééé'; return x._y\n"
    (p,) = validate(text, line_offset=41)
    assert p.span == Span(43, 24, 43, 26)
