"""parse_module agrees with ast.parse (the reference) on every source: same tree, same
positions, same errors."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stepsmith.runner import pyparse
from stepsmith.runner.pyparse import parse_module

REPO = Path(__file__).resolve().parents[2]

PARTS = ["def f(a):\n    return a\n", "x = (1,\n     2)\n", 's = """\ndef g():\n"""\n',
         "if x:\n    pass\nelse:\n    y = 1\n", "@dec\ndef h():\n    pass\n", "# c\n", "\n",
         "try:\n    a\nexcept E:\n    b\nfinally:\n    c\n", "z = 1 + \\\n    2\n",
         "class C:\n    def m(self):\n        return 1\n", "def bad(:\n", "é = 'ü'\n",
         "async def k():\n    await q\n", "x = [\n", "]\n", "\tx = 1\n", "y = 2\r\n"]


def dump(tree) -> str:
    return ast.dump(tree, include_attributes=True)


def agree(source: str) -> None:
    try:
        want = dump(ast.parse(source))
    except (SyntaxError, ValueError) as exc:
        with pytest.raises(type(exc)) as got:
            parse_module(source)
        assert (got.value.args, getattr(got.value, "lineno", None)) == \
            (exc.args, getattr(exc, "lineno", None))
        return
    assert dump(parse_module(source)) == want


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PARTS), max_size=40))
def test_agrees_with_ast_parse_on_generated_sources(parts):
    old = pyparse.WHOLE_BELOW
    pyparse.WHOLE_BELOW = 0  # chunk even the small ones
    try:
        agree("".join(parts))
    finally:
        pyparse.WHOLE_BELOW = old


def test_agrees_with_ast_parse_on_the_repository_sources():
    files = sorted(REPO.glob("examples/**/*.py")) + sorted(REPO.glob("runner/**/*.py"))
    assert len(files) > 50
    for f in files:
        agree(f.read_text())


def test_a_big_file_is_parsed_in_chunks(monkeypatch):
    source = "".join(f"def f{i}(a):\n    return a + {i}\n\n\n" for i in range(2000))
    calls = []
    real = ast.parse
    monkeypatch.setattr(ast, "parse", lambda text, *a, **k: calls.append(len(text)) or real(text))
    tree = parse_module(source)
    assert len(tree.body) == 2000 and tree.body[-1].lineno == 7997
    assert max(calls) < 100  # never the whole file at once
