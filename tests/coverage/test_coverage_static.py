"""Static shape of a step file: statements, branch arcs, multi-line statements, bound names."""

from stepsmith.runner.coverage.static import analyse

SRC = '''"""Module doc."""
from decimal import Decimal


def f(x, items):
    """Doc."""
    total = 0
    if x > 0:
        pass
    elif x < -5:
        total = -1
    for i in items:
        if i % 2:
            continue
        total += i
    else:
        total += 100
    match x:
        case 1:
            y = "one"
        case [a, b]:
            y = "pair"
        case _:
            y = "other"
    try:
        z = 1 / x
    except ZeroDivisionError as exc:
        z = 0
    finally:
        z += 1
    while total > 1000:
        total -= 1
    while True:
        break
    r = [v
         for v in items
         if v]
    return (total,
            y)
'''


def test_statements_are_first_lines_without_docstrings_or_else_lines():
    shape = analyse(SRC)
    assert shape.statements == {2, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 20, 21,
                                22, 23, 24, 25, 26, 27, 28, 30, 31, 32, 33, 34, 35, 38}
    assert shape.line_count == 39


def test_branch_arcs_like_coverage_py():
    shape = analyse(SRC)
    assert shape.branches == {
        8: {9, 10},  # if -> body, elif
        10: {11, 12},  # elif -> body, after the if
        12: {13, 17},  # for -> body, its else
        13: {14, 15},  # if i % 2 -> continue, next statement
        19: {20, 21},  # case 1 -> body, next case
        21: {22, 23},  # case [a, b] -> body, next case (case _ never fails: no branch)
        31: {32, 33},  # while -> body, after (while True is not a branch)
    }
    assert (12, 17) in shape.arcs and len(shape.arcs) == 14


def test_exit_arcs_point_at_the_code_objects_first_line():
    shape = analyse("@deco\ndef f(x):\n    if x:\n        return 1\n\n\nx = 1\n")
    assert shape.branches == {3: {4, -1}}
    assert shape.statements == {1, 2, 3, 4, 7}  # coverage.py's: the def line runs too


def test_multiline_statements_map_to_their_first_line():
    shape = analyse(SRC)
    assert shape.line_map == {36: 35, 37: 35, 39: 38}
    assert shape.statement_of(37) == 35 and shape.statement_of(7) == 7


def test_names_bound_per_line():
    shape = analyse(SRC)
    assert shape.assigns[7] == ("total",)
    assert shape.assigns[12] == ("i",)
    assert shape.assigns[21] == ("a", "b")
    assert shape.assigns[27] == ("exc",)
    assert shape.assigns[35] == ("r",)  # not the comprehension's own `v`
    assert 2 not in shape.assigns  # imports are not values
    more = analyse("def g(d):\n    d['k'] = 1\n    if (n := len(d)) > 1:\n        a, *b = d\n")
    assert more.assigns == {2: ("d",), 3: ("n",), 4: ("a", "b")}


def test_the_shape_is_memoised_per_text():
    """The editor asks for the same ran text on every keystroke: one analysis per text."""
    assert analyse(SRC) is analyse(SRC) is analyse("\ufeff" + SRC)
    assert analyse(SRC + "\n") is not analyse(SRC)
