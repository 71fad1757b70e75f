"""Pathological input: a clear problem, never an exception or a traceback."""

from __future__ import annotations

import ast

import pytest
from stepsmith.runner.problems import Problem
from stepsmith.runner.validator import MAX_SOURCE_BYTES, validate


def only(problems: list[Problem]) -> Problem:
    assert len(problems) == 1, [(p.code, p.message) for p in problems]
    return problems[0]


def test_five_megabyte_file_is_refused_by_the_size_cap():
    source = ("def f(x):\n    return x + 1\n\n\n" * 200_000)[: 5 * 1024 * 1024]
    p = only(validate(source))
    assert p.code == "SS002" and "1,048,576" in p.message
    p = only(validate(source.encode()))
    assert p.code == "SS002" and "5,242,880" in p.message


def test_size_cap_counts_utf8_bytes_not_characters():
    body = "é" * (MAX_SOURCE_BYTES // 2 + 1)  # fewer characters than the cap, more bytes
    assert only(validate(f"# {body}\n")).code == "SS002"


@pytest.mark.parametrize("source", [
    "x = " + "(" * 100_000 + "1" + ")" * 100_000,  # tokenizer: too many nested parentheses
    "def f():\n    return " + "-" * 100_000 + "1\n",  # parser stack: MemoryError
    "def f():\n    return " + "not " * 100_000 + "x\n",
    "def f():\n    return " + "+".join(["1"] * 100_000) + "\n",  # RecursionError building AST
    "def f():\n    return x" + ".y" * 100_000 + "\n",
    "def f():\n    return f" + "()" * 100_000 + "\n",
    "def f():\n    return " + "lambda: " * 100_000 + "1\n",
    "".join(" " * i + "if x:\n" for i in range(200)) + " " * 200 + "pass\n",  # indentation
], ids=["parens", "unary", "not", "binop", "attr", "call", "lambda", "indent"])
def test_deep_nesting_is_a_clear_problem(source):
    p = only(validate(source))
    assert p.code in {"SS001", "SS003"}
    assert "Traceback" not in p.message and p.message


def test_five_hundred_term_expression_walks_iteratively():
    source = "def f(x):\n    return " + " + ".join(["x"] * 500) + " + x._y\n"
    assert [p.code for p in validate(source)] == ["SS201"]


def test_deep_but_parseable_tree_is_walked_without_recursion():
    # a 1,200-deep attribute chain parses, but kills a recursive NodeVisitor
    source = "def f(x):\n    return x" + ".a" * 1200 + "._b\n"
    with pytest.raises(RecursionError):
        ast.NodeVisitor().visit(ast.parse(source))
    assert [p.code for p in validate(source)] == ["SS201"]


def test_invalid_utf8_reports_its_position():
    p = only(validate(b"def f():\n    return 1\n# caf\xe9\n"))
    assert p.code == "SS004" and (p.line, p.column) == (3, 5)
    assert "0xE9" in p.message


def test_binary_file_is_a_clear_problem():
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10"
    assert only(validate(png)).code == "SS004"
    nul = b"def f():\n    return 1\x00\n"
    p = only(validate(nul))
    assert p.code == "SS001" and "null byte" in p.message and (p.line, p.column) == (2, 12)


def test_lone_surrogate_in_str_is_not_utf8():
    p = only(validate('def f():\n    return "\ud800"\n'))
    assert p.code == "SS004" and (p.line, p.column) == (2, 12)


@pytest.mark.parametrize("source", ["", b"", "\n\n", "# only a comment\n", "\ufeff", b"\xef\xbb\xbf"])
def test_empty_file_is_clean(source):
    assert validate(source) == []


def test_bom_is_accepted():
    assert validate(b"\xef\xbb\xbfimport json\n") == []
    assert validate("\ufeffimport json\n") == []


def test_crlf_and_cr_line_endings_count_lines_like_python():
    assert [(p.line, p.column) for p in validate("import json\r\n\r\ndef f(x):\r\n    return x._y\r\n")] \
        == [(4, 13)]
    assert [(p.line, p.column) for p in validate("import json\r\rdef f(x):\r    return x._y\r")] \
        == [(4, 13)]


def test_form_feed_and_unicode_separators_are_not_line_breaks():
    # str.splitlines() would split at \x0c and U+2028 and shift every later line
    source = "# \x0c page \u2028 break\ndef f(x):\n    return 'é', x._y\n"
    assert [(p.line, p.column) for p in validate(source)] == [(3, 18)]


def test_syntax_warnings_do_not_escape(recwarn):
    assert validate('def f():\n    return "\\d"\n') == []
    assert not [w for w in recwarn if issubclass(w.category, (SyntaxWarning, DeprecationWarning))]


def test_internal_error_fails_closed(monkeypatch):
    from stepsmith.runner.validator.checks import names

    def boom(ctx, node):
        raise KeyError("injected")

    monkeypatch.setattr(names, "check_name", boom)
    from stepsmith.runner.validator import checks
    from stepsmith.runner.validator.walk import build_dispatch

    dispatch = build_dispatch([{**names.HANDLERS, __import__("ast").Name: boom}])
    monkeypatch.setattr(checks, "DISPATCH", dispatch)
    from stepsmith.runner.validator import engine

    engine.clear_cache()  # the statement cache must not answer for the walk
    problems = validate("def f(x):\n    return x\n")
    engine.clear_cache()
    assert [p.code for p in problems] == ["SS003"]
    assert "KeyError" in problems[0].message and "failed closed" in problems[0].message


def test_wrong_input_type_fails_closed_instead_of_raising():
    assert [p.code for p in validate(12345)] == ["SS003"]  # type: ignore[arg-type]


def test_line_offset_shifts_meta_problems_too():
    assert only(validate("def f(:\n", line_offset=10)).line == 11
    assert only(validate(b"\xff", line_offset=10)).line == 11


def test_garbage_collector_state_is_restored():
    import gc

    assert gc.isenabled()
    validate("def f(x):\n    return x._y\n")
    assert gc.isenabled()
    gc.disable()
    try:
        validate("def f(:\n")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_byte_order_mark_in_text_is_a_column_of_line_one():
    """Positions are in the coordinates of the text as given: a client that keeps the BOM in
    its buffer counts it as line 1's first character; the fix edits keep it. Bytes are
    decoded first (the BOM is not text then), so their columns count without it."""
    body = "\n\ndef f(a):\n    return a\n"
    (p,) = validate("\ufeffimport os\n" + body)
    assert (p.span.line, p.span.column, p.span.end_column) == (1, 8, 10)
    assert p.data["edits"] == [[1, 1, 2, 0, ""]]
    (q,) = validate(b"\xef\xbb\xbfimport os\n" + body.encode())
    assert (q.span.column, q.data["edits"]) == (7, [[1, 0, 2, 0, ""]])
    (r,) = validate("\ufeff\nimport os\n" + body)
    assert (r.span.line, r.span.column, r.data["edits"]) == (2, 7, [[2, 0, 3, 0, ""]])
