"""The live-feedback services (issue 12) on real traced sandbox runs: coverage of a step with
two branches and a loop, with a fixture for only one branch; the values of a fixture as inlay
hints and in the hover of a name (a `|` marks the cursor); a credential never in a hint; the
buffer moving on after the run (a changed line keeps nothing)."""

from __future__ import annotations

import pytest
from cursor_kit import cursor
from stepsmith.runner.language.carry import line_map
from stepsmith.runner.language.coverage import coverage_view, untaken_branches
from stepsmith.runner.language.values import (
    ValueHint,
    pick_fixture,
    traced_values,
    value_hints,
    value_hover,
)
from stepsmith.runner.problems import Span
from stepsmith.runner.sandbox import run_step
from wfkit import TOTAL_CODE

STEP = TOTAL_CODE  # tests/kits/wfkit.py
EUR = {"items": ["12.50", "7.50"], "currency": "EUR"}


@pytest.fixture(scope="module")
def eur_run():
    res = run_step(STEP, "total", EUR, trace="values")
    assert res.status == "ok" and res.output == "20.00", res.message
    return res


@pytest.fixture(scope="module")
def eur(eur_run):
    return traced_values("eur", STEP, eur_run.values, eur_run.coverage.lines)


def test_coverage_of_two_branches_and_a_loop_with_one_fixture(eur_run):
    view = coverage_view("step.py", STEP, STEP, {"eur": eur_run.coverage})
    assert view.executed == (1, 4, 5, 6, 9, 10, 11, 12, 13)
    assert view.missing == (8,)
    assert view.taken_arcs == ((5, 6), (10, 11), (10, 13))
    assert view.missing_arcs == ((5, 8),)
    assert view.fixtures["eur"].lines == view.executed
    assert view.stale is False
    assert view.to_json()["missingArcs"] == [[5, 8]]


def test_no_fixture_takes_this_branch(eur_run):
    notes = untaken_branches("step.py", STEP, STEP, {"eur": eur_run.coverage})
    assert [(n.span, n.arc, n.message) for n in notes] == [
        (Span(5, 4, 5, 25), (5, 8), "no fixture takes this branch (to line 8)")]


def test_a_second_fixture_takes_the_other_branch(eur_run):
    usd = run_step(STEP, "total", {"items": ["1"], "currency": "USD"}, trace="coverage")
    assert usd.status == "ok", usd.message
    traces = {"eur": eur_run.coverage, "usd": usd.coverage}
    assert untaken_branches("step.py", STEP, STEP, traces) == []
    view = coverage_view("step.py", STEP, STEP, traces)
    assert view.missing == () and view.missing_arcs == () and view.percent == 100.0
    assert 8 in view.fixtures["usd"].lines and 6 not in view.fixtures["usd"].lines


def test_value_hints_at_line_ends(eur):
    hints = value_hints(STEP, eur)
    assert [(h.line, h.column, h.label) for h in hints] == [
        (6, 27, "= Decimal('1')"),
        (9, 23, "= Decimal('0')"),
        (10, 22, "= '12.50' … '7.50' (3×)"),
        (11, 37, "= Decimal('12.50') … Decimal('7.50') (2×)"),
        (12, 22, "= Decimal('12.50') … Decimal('20.00') (2×)"),
        (13, 20, "→ '20.00'"),
    ]
    assert hints[3].tooltip == ("fixture eur, ran 2×\nfirst: amount = Decimal('12.50')\n"
                                "last: amount = Decimal('7.50')")
    assert [h.line for h in value_hints(STEP, eur, 10, 11)] == [10, 11]


def test_hover_of_a_name_bound_on_the_line(eur):
    text, line, col = cursor(STEP.replace("        amount = ", "        amo|unt = "))
    assert value_hover(text, eur, line, col) == (
        "**amount** in fixture `eur`\n\nfirst: `amount = Decimal('12.50')`  \n"
        "last: `amount = Decimal('7.50')` (2×)")


def test_hover_of_a_name_bound_above(eur):
    text, line, col = cursor(STEP.replace("Decimal(item) * rate", "Decimal(item) * ra|te"))
    assert value_hover(text, eur, line, col) == (
        "**rate** in fixture `eur` (bound on line 6)\n\n`rate = Decimal('1')`")


def test_no_hover_on_a_line_no_fixture_ran(eur):
    text, line, col = cursor(STEP.replace('rate = Decimal("1.1")', 'ra|te = Decimal("1.1")'))
    assert value_hover(text, eur, line, col) is None


def test_the_buffer_moved_on_a_changed_line_keeps_nothing(eur, eur_run):
    edited = STEP.replace('sum_ = Decimal("0")', 'sum_ = Decimal("0.00")').replace(
        "from decimal import Decimal\n", "from decimal import Decimal\nimport json\n")
    hints = {h.line: h.label for h in value_hints(edited, eur)}
    assert hints == {7: "= Decimal('1')", 11: "= '12.50' … '7.50' (3×)",
                     12: "= Decimal('12.50') … Decimal('7.50') (2×)",
                     13: "= Decimal('12.50') … Decimal('20.00') (2×)", 14: "→ '20.00'"}
    view = coverage_view("step.py", edited, STEP, {"eur": eur_run.coverage})
    assert view.stale and 10 not in view.executed and view.missing_arcs == ((6, 9),)
    assert line_map("a\nb\n", "a\nx\nb\n") == {1: 1, 2: 3, 3: 4}


def test_a_credential_never_appears_in_a_value_hint():
    secret = "tok-9f8e7d6c5b4a"
    src = ('def call(connections):\n'
           '    token = connections["api"]\n'
           '    header = "Bearer " + token\n'
           '    parts = [header, token[:8]]\n'
           '    return len(header)\n')
    res = run_step(src, "call", {}, connections={"api": secret}, trace="values")
    assert res.status == "ok" and res.output == len("Bearer " + secret), res.message
    tv = traced_values("live", src, res.values, res.coverage.lines)
    hints = value_hints(src, tv)
    shown = " ".join(h.label + h.tooltip for h in hints)
    assert secret not in shown and "[redacted:api]" in shown
    assert [(h.line, h.label) for h in hints][:2] == [
        (2, "= '[redacted:api]'"), (3, "= 'Bearer [redacted:api]'")]
    text, line, col = cursor(src.replace("return len(header)", "return len(hea|der)"))
    hover = value_hover(text, tv, line, col)
    assert hover is not None and secret not in hover and "[redacted:api]" in hover


def test_pick_fixture_first_failing_else_first_or_chosen():
    assert pick_fixture([("a", True), ("b", False), ("c", False)]) == "b"
    assert pick_fixture([("a", True), ("b", True)]) == "a"
    assert pick_fixture([("a", True), ("b", False)], chosen="a") == "a"
    assert pick_fixture([("a", True)], chosen="gone") == "a"
    assert pick_fixture([]) is None


def test_no_values_no_hints():
    assert value_hints(STEP, None) == [] and value_hover(STEP, None, 6, 9) is None
    assert traced_values("x", STEP, None) is None
    assert ValueHint(1, 0, "= 1", "t").label == "= 1"
