"""Incremental per-function validation == validating the whole file from scratch."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stepsmith.runner.language.incremental import (
    IncrementalValidator,
    chunk_starts,
    function_spans,
    split_lines,
)
from stepsmith.runner.validator import StepUse, validate

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
    "\n    pass\n", "async ", "\x00",
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
    v = IncrementalValidator(uses=use)
    assert v.update(text) == validate(text, uses=use)
    for pos, length, new in edit_list:
        text = _apply(text, pos, length, new)
        assert v.update(text) == validate(text, uses=use), text


def test_an_edit_inside_one_function_revalidates_only_that_function():
    funcs = [f"def f{i}(x):\n    y = x + {i}\n    return y\n\n\n" for i in range(50)]
    text = "import json\n\n\n" + "".join(funcs)
    v = IncrementalValidator()
    v.update(text)
    before = v.stats["validated"]
    text2 = text.replace("y = x + 17\n", "y = eval(x)\n")
    problems = v.update(text2)
    assert v.stats["validated"] - before == 1
    assert [p.code for p in problems] == ["SS301"]
    assert problems == validate(text2)


def test_inserting_lines_shifts_cached_problems():
    text = "def a():\n    return eval('1')\n\n\ndef b():\n    return exec('1')\n"
    v = IncrementalValidator()
    v.update(text)
    text2 = "import json\n\n" + text
    assert v.update(text2) == validate(text2)
    assert [p.line for p in v.update(text2)] == [4, 8]


def test_syntax_error_falls_back_to_full_validation():
    text = "def a():\n    return 1\n\n\ndef b(:\n    pass\n"
    v = IncrementalValidator()
    assert v.update(text) == validate(text)
    assert v.stats["full"] == 1


def test_future_import_outside_first_chunk_is_exact():
    text = "import json\nfrom __future__ import annotations\n"
    assert IncrementalValidator().update(text) == validate(text)


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
    v = IncrementalValidator()
    assert v.update(big) == validate(big) and [p.code for p in v.update(big)] == ["SS002"]
    almost = "é" * (MAX_SOURCE_BYTES // 2 + 10)  # under the cap in characters, over in bytes
    text = body + f"def g():\n    return '{almost}'\n"
    assert v.update(text) == validate(text)
    text = body + "def g():\n    return '\ud800'\n"
    assert v.update(text) == validate(text)
