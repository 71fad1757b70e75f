"""The one incremental validator: `validate` (memoised per top-level statement) over a
sequence of edits == validating each text from scratch (`validate_whole_file`), positions
included; edits re-check only what they touched."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stepsmith.runner.lines import chunk_starts, function_spans, split_lines
from stepsmith.runner.validator import StepUse, validate
from stepsmith.runner.validator.engine import (
    clear_cache,
    statements_parsed,
    validate_whole_file,
)

SNIPPETS = [
    '"""Module docstring."""\n',
    "import json\n",
    "import os\n",
    "from decimal import Decimal\n",
    "from __future__ import annotations\n",
    "import urllib.request\n",
    "def match(invoice, orders):\n    total = Decimal(invoice['amount'])\n    return total\n",
    "def f(x):\n    return eval(x)\n",
    "def g(x):\n    s = \"\"\"\nfoo = 1\ndef h():\n\"\"\"\n    return s\n",
    "def h(x):\n    return (x +\n1)\n",
    "class A:\n    pass\n",
    "@decorator\ndef d():\n    pass\n",
    "async def a():\n    await b()\n",
    '"""a string statement"""\n',
    "x = 1\n",
    "def broken(:\n    pass\n",
    "if x:\n    pass\nelse:\n    pass\n",
    "try:\n    pass\nexcept Exception:\n    pass\n",
    "def ü(ñ):\n    return ñ.__class__\n",
    "def s():\n    return statistics.NormalDist(0, 1).samples(3)\n",
    "# a comment\n",
    "\n",
    "\n\n",
    "def t():\n    return '𝔘nicode' + x._private\n",
    "def u():\n\treturn getattr(x, '_' + '_class__')\n",
    "def v():\n    return datetime.datetime.now()\n",
    "\x0c\n",
    "def w(): return 1\n",
    "    indented = 1\n",
    ")\n",
    "def r():\n    return '''\n'''\n",
]
EDIT_TEXT = st.sampled_from([
    "", "\n", "x", "def ", "    ", "(", ")", '"""', "'", "#", "\\", "import os\n", ":",
    "\ndef q():\n    return 1\n", "\r\n", "\r", "class", "@", "else:\n", "𝔘", "é", "\t", "__", "eval(1)",
    "\n    pass\n", "async ", "\x00", "\\\r\n",
])


def _apply(text: str, pos: int, length: int, new: str) -> str:
    pos = min(pos, len(text))
    return text[:pos] + new + text[pos + length:]


files = st.lists(st.sampled_from(SNIPPETS), min_size=0, max_size=12).map("".join)
edits = st.lists(st.tuples(st.integers(0, 400), st.integers(0, 30), EDIT_TEXT), min_size=1, max_size=8)
uses = st.sampled_from([(), (StepUse("s", "f", "none"),), (StepUse("s", "f", "public_egress"),)])


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files, edits, uses)
def test_incremental_equals_from_scratch(text, edit_list, use):
    assert validate(text, uses=use) == validate_whole_file(text, uses=use)
    for pos, length, new in edit_list:
        text = _apply(text, pos, length, new)
        assert validate(text, uses=use) == validate_whole_file(text, uses=use), text


def test_an_edit_inside_one_function_revalidates_only_that_function():
    funcs = [f"def f{i}(x):\n    y = x + {i}\n    return y\n\n\n" for i in range(50)]
    text = "import json\n\n\n" + "".join(funcs)
    clear_cache()
    validate(text)
    before = statements_parsed()
    assert before == 51
    text2 = text.replace("y = x + 17\n", "y = eval(x)\n")
    problems = validate(text2)
    assert statements_parsed() - before == 1
    assert [p.code for p in problems] == ["SS301"]
    assert problems == validate_whole_file(text2)


def test_inserting_lines_shifts_cached_problems():
    text = "def a():\n    return eval('1')\n\n\ndef b():\n    return exec('1')\n"
    validate(text)
    text2 = "import json\n\n" + text
    before = statements_parsed()
    assert validate(text2) == validate_whole_file(text2)
    assert [p.line for p in validate(text2)] == [4, 8]
    assert statements_parsed() - before == 1  # only the new import statement


def test_syntax_error_is_reported_as_by_a_whole_file_parse():
    text = "def a():\n    return 1\n\n\ndef b(:\n    pass\n"
    assert validate(text) == validate_whole_file(text)
    assert [p.code for p in validate(text)] == ["SS001"]


def test_future_import_outside_first_statement_is_exact():
    text = "import json\nfrom __future__ import annotations\n"
    assert validate(text) == validate_whole_file(text)


def test_split_lines_matches_editor_rules():
    assert split_lines("a\r\nb\rc\nd") == ["a\r\n", "b\r", "c\n", "d"]
    assert split_lines("a\x0cb\u2028c\n") == ["a\x0cb\u2028c\n", ""]
    assert split_lines("") == [""]


def test_function_spans_and_chunks():
    text = "import json\n\ndef a(x):\n    return x\n\ndef b():\n    pass\n"
    spans = function_spans(text)
    assert [(f.name, f.line, f.end_line) for f in spans] == [("a", 3, 5), ("b", 6, 8)]
    assert chunk_starts(split_lines(text)) == [0, 2, 5]


def test_size_cap_and_lone_surrogates_match_full_validation():
    from stepsmith.runner.validator.policy import MAX_SOURCE_BYTES

    body = "def f(x):\n    return x\n\n\n"
    big = body * (MAX_SOURCE_BYTES // len(body) + 1)
    assert validate(big) == validate_whole_file(big) and [p.code for p in validate(big)] == ["SS002"]
    almost = "é" * (MAX_SOURCE_BYTES // 2 + 10)  # under the cap in characters, over in bytes
    text = body + f"def g():\n    return '{almost}'\n"
    assert validate(text) == validate_whole_file(text)
    text = body + "def g():\n    return '\ud800'\n"
    assert validate(text) == validate_whole_file(text)


def test_a_backslash_before_crlf_continues_the_line():
    # CPython parses "x\\\r\n" alone (but not "x\\\n"): the chunk before a continued line must
    # not be taken for a finished statement (found by the property test above)
    for text in ("x\\\r\ndef q():\n    return 1\n", "\nx = 1\nx\t\t\t\\\r\ndef q():\n    return 1\n",
                 "import os\nx\U0001d518async \\\r\ndef q():\n    return 1\n"):
        clear_cache()
        assert validate(text) == validate_whole_file(text), text
        assert [p.code for p in validate(text)][-1] == "SS001"


def test_function_spans_follow_backslash_continuations():
    text = "x = 1 + \\\r\ndef_value\ndef f():\n    return 1\n"
    assert [(f.name, f.line) for f in function_spans(text)] == [("f", 3)]
    assert chunk_starts(split_lines(text)) == [0, 2]


def test_signature_fingerprint_sees_headers_not_bodies():
    from stepsmith.runner.lines import signature_fingerprint

    text = "import math\n\n\ndef f(a,\n      b):\n    return a\n\n\nasync def g(x):\n    pass\n"
    fp = signature_fingerprint(text)
    assert [h for h, _ in fp] == ["def f(a,\n      b):", "async def g(x):"]
    assert signature_fingerprint(text.replace("return a", "return b")) == fp
    assert signature_fingerprint(text.replace("      b):", "      c):")) != fp
    # lines only when asked (a cross-file finding is positioned on them)
    moved = "\n" + text
    assert signature_fingerprint(moved) == fp
    assert signature_fingerprint(moved, True) != signature_fingerprint(text, True)
    assert [n for _, n in signature_fingerprint(text, True)] == [4, 9]
    # editor line ends: \r\n and a lone \r end lines too
    assert [n for _, n in signature_fingerprint(text.replace("\n", "\r"), True)] == [4, 9]
    assert [n for _, n in signature_fingerprint(text.replace("\n", "\r\n"), True)] == [4, 9]


def test_signature_fingerprint_agrees_with_function_spans_on_generated_files():
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from stepsmith.runner.lines import signature_fingerprint

    part = st.sampled_from(["def f(a):\n", "def g(a, b):\n", "    x = 1\n", "\n", "# c\n",
                            "async def h(\n", "    y):\n", "x = 2\n", "def k(a) -> int:\n"])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(part, max_size=30))
    def check(parts):
        text = "".join(parts)
        got = signature_fingerprint(text, True)
        names = [f.name for f in function_spans(text)]
        lines = [f.line for f in function_spans(text)]
        # every top-level def the text split sees is in the fingerprint, on its line
        assert [n for _, n in got] == lines
        assert all(name in h for name, (h, _) in zip(names, got, strict=True))

    check()
