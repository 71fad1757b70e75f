"""Quick fixes carry their edits on Problem.data, computed by the rule that found the problem
(no re-parsing in the editor). Every fix, applied, gives code that parses and no longer has
the problem it fixes; the broken fixes seen in real clients each have a case here."""

import ast

import pytest
from stepsmith.runner.fixes import Fix, TextEdit, apply_edits, fix_of
from stepsmith.runner.problems import Span
from stepsmith.runner.validator import validate

ND = "import statistics\n\n\ndef step(mu):\n"


def _fixed(src: str, code: str, nth: int = 0) -> str:
    probs = [p for p in validate(src) if p.code == code]
    assert probs, f"expected {code} in {validate(src)}"
    fix = fix_of(probs[nth])
    assert fix is not None and fix.code == code and fix.edits
    out = apply_edits(src, fix.edits)
    ast.parse(out)  # a fix never breaks the syntax
    return out


@pytest.mark.parametrize("src, want", [
    # the bug seen in Neovim: `pass; import json` (SS405 at top level)
    ("import os; import json\n", "import json\n"),
    ("import json; import os\n", "import json\n"),
    ("import os\nimport json\n", "import json\n"),
    ("import os, json\n", "import json\n"),
    ("import json, os\n", "import json\n"),
    ("from os import path\nimport json\n", "import json\n"),
    ("import os  # why\nimport json\n", "import json\n"),
    ("def f():\n    import os\n    return 1\n", "def f():\n    return 1\n"),
    ("def f():\n    if True:\n        import os\n    return 1\n",
     "def f():\n    if True:\n        pass\n    return 1\n"),
    ("def f():\n    if True: import os\n    return 1\n",
     "def f():\n    if True: pass\n    return 1\n"),
    ("def f():\n    x = 1; import os\n    return x\n", "def f():\n    x = 1\n    return x\n"),
    ("import json\nimport os", "import json\n"),
    ("import os\r\nimport json\r\n", "import json\r\n"),
    # any import shape: parenthesised multi-line, continuation lines, `;` in the middle
    ("from os import (\n    path,\n    sep,\n)\nimport json\n", "import json\n"),
    ("import json, \\\n    os\n", "import json\n"),
    ("x = 1; import os; y = 2\n", "x = 1; y = 2\n"),
    ("import os ; import json\n", "import json\n"),
    ("def f():\n    import os; return 1\n", "def f():\n    return 1\n"),
    ("def f():\n    if 1: import os; import json\n    return 1\n",
     "def f():\n    if 1: import json\n    return 1\n"),
    ("from urllib import (\n    parse,  # p\n)\n", ""),
])
def test_remove_import(src, want):
    code = next(p.code for p in validate(src) if p.data.get("fix") == "remove-import")
    assert _fixed(src, code) == want


@pytest.mark.parametrize("call, want", [
    ("samples(3)", "samples(3, seed=0)"),
    ("samples()", "samples(seed=0)"),
    # the bug: a multi-line call with a trailing comma became `3,\n, seed=0)` (SyntaxError)
    ("samples(\n        3,\n    )", "samples(\n        3, seed=0,\n    )"),
    ("samples(3, seed=None)", "samples(3, seed=0)"),
    ("samples(n=3)", "samples(n=3, seed=0)"),
    # any call shape: a parenthesised last argument, a lone generator, comments, stars
    ("samples((3))", "samples((3), seed=0)"),
    ("samples((3)  ,  )", "samples((3), seed=0  ,  )"),
    ("samples(x for x in mu)", "samples((x for x in mu), seed=0)"),
    ("samples(3,)", "samples(3, seed=0,)"),
    ("samples(*mu)", "samples(*mu, seed=0)"),
    ("samples(**mu)", "samples(**mu, seed=0)"),
    ("samples(3  # n\n    )", "samples(3, seed=0  # n\n    )"),
    ("samples(\n    )", "samples(\n    seed=0)"),
    ("samples(\n        (3)  # n\n        ,\n    )", "samples(\n        (3), seed=0  # n\n        ,\n    )"),
    ("samples(3, seed=(None))", "samples(3, seed=(0))"),
])
def test_add_seed(call, want):
    src = ND + f"    return statistics.NormalDist(mu, 1).{call}\n"
    out = _fixed(src, "SS501")
    assert out == ND + f"    return statistics.NormalDist(mu, 1).{want}\n"
    assert not [p for p in validate(out) if p.code == "SS501"]


def test_remove_decorator():
    src = "import json\n\n\n@json.dumps\ndef step(x):\n    return x\n"
    assert _fixed(src, "SS404") == "import json\n\n\ndef step(x):\n    return x\n"


def test_edits_follow_the_problem_when_validated_with_a_line_offset():
    # the incremental validator validates one function at its place: the edits move with it
    src = "def f():\n    import os\n    return 1\n"
    p = next(p for p in validate(src, line_offset=10) if p.code == "SS101")
    fix = fix_of(p)
    assert fix.edits == (TextEdit(Span(12, 0, 13, 0), ""),)


def test_cached_statements_moved_down_carry_moved_edits():
    a = "import json\n\n\ndef f():\n    import os\n    return 1\n"
    validate(a)  # warms the per-statement cache
    b = "import json\n\n\n\n\ndef f():\n    import os\n    return 1\n"
    p = next(p for p in validate(b) if p.code == "SS101")
    assert apply_edits(b, fix_of(p).edits) == "import json\n\n\n\n\ndef f():\n    return 1\n"


def test_no_fix_means_none_and_fixes_are_plain_data():
    p = next(p for p in validate("class A:\n    pass\n") if p.code == "SS401")
    assert fix_of(p) is None
    q = validate("import os\n")[0]
    assert isinstance(fix_of(q), Fix)
    import json

    json.dumps(q.to_json() if hasattr(q, "to_json") else q.data)  # JSON-safe all the way


def test_apply_edits_refuses_overlapping_edits():
    with pytest.raises(ValueError):
        apply_edits("abc\n", (TextEdit(Span(1, 0, 1, 2), ""), TextEdit(Span(1, 1, 1, 3), "")))


@pytest.mark.parametrize("src, nth, want", [
    ("from urllib import (\n    parse,\n    request,\n)\nimport json\n", 0,
     "from urllib import (\n    request,\n)\nimport json\n"),
    ("from urllib import (\n    parse,\n    request,\n)\nimport json\n", 1,
     "from urllib import (\n    parse,\n)\nimport json\n"),
    ("from urllib import (parse,\n                    request)\n", 1, "from urllib import (parse)\n"),
])
def test_remove_one_name_of_a_parenthesised_multi_line_import(src, nth, want):
    before = [p for p in validate(src) if p.data.get("fix") == "remove-import"]
    out = _fixed(src, before[nth].code, nth)
    assert out == want
    after = [p for p in validate(out) if p.data.get("fix") == "remove-import"]
    assert len(after) == len(before) - 1  # removes its problem, adds none
