"""Combining per-fixture traces and the three report shapes (pure: hand-made traces)."""

from stepsmith.runner.coverage import report
from stepsmith.runner.coverage.combine import combine, combine_all
from stepsmith.runner.sandbox import Coverage

STEP = '''def total(kind, amounts):
    total = 0
    if kind == "credit":
        sign = -1
    else:
        sign = 1
    for amount in amounts:
        total += amount * sign
    return total
'''
# what the sandbox traced for fixture "debit" (kind == "debit", two amounts)
DEBIT = Coverage("steps/total.py", frozenset({1, 2, 3, 6, 7, 8, 9}),
                 frozenset({(-1, 1), (1, -1), (-1, 2), (2, 3), (3, 6), (6, 7), (7, 8), (8, 7),
                            (7, 9), (9, -1)}))
CREDIT_EMPTY = Coverage("steps/total.py", frozenset({1, 2, 3, 4, 7, 9}),
                        frozenset({(-1, 2), (2, 3), (3, 4), (4, 7), (7, 9), (9, -1)}))


def test_one_fixture_one_branch_exact_missing():
    fc = combine("steps/total.py", STEP, {"debit": DEBIT})
    assert fc.missing == {4}
    assert fc.missing_arcs == {(3, 4)}
    assert fc.partial_arcs == {(3, 4)} and fc.partial_branches == 1
    # coverage.py's Missing column leaves out 3->4: line 4 itself is listed missing
    assert report.missing_text(fc) == "4"
    # 7 of 8 statements, 3 of 4 branch arcs
    assert round(fc.percent, 2) == round(100 * 10 / 12, 2)


def test_two_fixtures_combined():
    fc = combine("steps/total.py", STEP, [("debit", DEBIT), ("credit-empty", CREDIT_EMPTY)])
    assert fc.missing == set() and fc.missing_arcs == set() and fc.percent == 100.0
    assert fc.fixture_hits(4) == 1 and fc.fixture_hits(7) == 2
    assert fc.arc_hits((7, 8)) == 1


def test_other_files_traces_are_ignored():
    other = Coverage("steps/other.py", frozenset({4}), frozenset({(3, 4)}))
    fc = combine("steps/total.py", STEP, {"debit": DEBIT, "x": other})
    assert set(fc.fixtures) == {"debit"} and fc.missing == {4}


def test_text_table():
    files = combine_all({"steps/total.py": STEP, "steps/never.py": "def f():\n    return 1\n"},
                        [("debit", DEBIT)])
    assert report.text(files) == (
        "Name             Stmts   Miss   Branch   BrPart   Cover   Missing\n"
        "-----------------------------------------------------------------\n"
        "steps/never.py       2      2        0        0      0%   1-2\n"
        "steps/total.py       8      1        4        1     83%   4\n"
        "-----------------------------------------------------------------\n"
        "TOTAL               10      3        4        1     71%\n")


def test_missing_ranges_and_exit_arcs():
    # raw traces as the tracer records them: the module runs (-1 -> 1 -> exit), f entered
    ran_f = frozenset({(-1, 1), (1, -1), (-1, 2), (2, 3), (3, -1)})
    src = "def f(x):\n    if x:\n        return 1\n    a = 1\n\n    b = 2\n    c = 3\n"
    fc = combine("s.py", src, {"one": Coverage("s.py", frozenset({1, 2, 3}), ran_f)})
    assert report.missing_text(fc) == "4-7"  # no 2->4: 4 is missing itself
    src2 = "def f(x):\n    if x:\n        y = 1\n    else:\n        y = 2\n    return y\n"
    ran2 = frozenset({(-1, 1), (1, -1), (-1, 2), (2, 5), (5, 6), (6, -1)})
    fc2 = combine("s.py", src2, {"one": Coverage("s.py", frozenset({1, 2, 5, 6}), ran2)})
    assert report.missing_text(fc2) == "3"
    src3 = "def f(x):\n    if x:\n        y = 1\n"
    fc3 = combine("s.py", src3, {"one": Coverage("s.py", frozenset({1, 2, 3}),
                                                 frozenset({(-1, 1), (1, -1), (-1, 2), (2, 3),
                                                            (3, -1)}))})
    assert report.missing_text(fc3) == "2->exit"


def test_json_shape():
    fc = combine("steps/total.py", STEP, [("debit", DEBIT), ("credit-empty", CREDIT_EMPTY)])
    doc = report.to_json([combine("steps/total.py", STEP, {"debit": DEBIT}), ])
    f = doc["files"]["steps/total.py"]
    assert f["missing_lines"] == [4] and f["missing_branches"] == [[3, 4]]
    assert f["executed_lines"] == [1, 2, 3, 6, 7, 8, 9]
    assert f["summary"]["num_branches"] == 4 and f["summary"]["covered_branches"] == 3
    assert f["fixtures"]["debit"]["executed_branches"] == [[3, 6], [7, 8], [7, 9]]
    assert doc["totals"]["percent_covered"] == 100 * 10 / 12  # coverage.py's float, unrounded
    assert f["summary"]["percent_covered_display"] == "83"  # and its display: no "%"
    assert f["summary"]["num_partial_branches"] == 1  # 3 ran, 3->4 not taken (4 never ran)
    assert report.to_json([fc])["files"]["steps/total.py"]["summary"]["percent_covered"] == 100


def test_lcov():
    fc = combine("steps/total.py", STEP, {"debit": DEBIT})
    never = combine("steps/never.py", "def f(x):\n    if x:\n        return 1\n", {})
    assert report.lcov([fc, never]) == (
        "TN:\nSF:steps/total.py\n"
        "DA:1,1\nDA:2,1\nDA:3,1\nDA:4,0\nDA:6,1\nDA:7,1\nDA:8,1\nDA:9,1\n"
        "LF:8\nLH:7\n"
        "BRDA:3,0,0,0\nBRDA:3,0,1,1\nBRDA:7,0,0,1\nBRDA:7,0,1,1\n"
        "BRF:4\nBRH:3\nend_of_record\n"
        "TN:\nSF:steps/never.py\nDA:1,0\nDA:2,0\nDA:3,0\nLF:3\nLH:0\n"
        "BRDA:2,0,0,-\nBRDA:2,0,1,-\nBRF:2\nBRH:0\nend_of_record\n")


def test_display_percent_never_rounds_to_the_ends():
    # coverage.py's display_covered (precision 0): "87", never "87%" (the table adds it)
    assert report.display_percent(99.6) == "99" and report.display_percent(0.2) == "1"
    assert report.display_percent(100.0) == "100" and report.display_percent(0) == "0"
    assert report.display_percent(87.4) == "87" and report.display_percent(82.5) == "82"


def test_lcov_leaves_out_a_path_with_a_newline():
    """LCOV is line-based and has no quoting: `SF:nl` plus a stray line made lcov merge two
    files into one silently and genhtml write no report. Such a file is left out, named."""
    ok = combine("steps/total.py", STEP, {"debit": DEBIT})
    nl = combine("nl\nfolder/steps/total.py", STEP, {"debit": DEBIT})
    cr = combine("cr\rfolder/steps/total.py", STEP, {"debit": DEBIT})
    assert report.lcov([nl, ok, cr]) == report.lcov([ok])
    assert report.lcov_left_out([nl, ok, cr]) == ["nl\nfolder/steps/total.py",
                                                  "cr\rfolder/steps/total.py"]
