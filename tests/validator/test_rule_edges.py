"""Rule edges the mutation table (tests/mutation/mutations.toml) found unguarded: each case
here failed to fail when its rule was weakened on purpose (issue 18 item 5)."""

from __future__ import annotations

import pytest
from validator_helpers import codes, src


@pytest.mark.parametrize("call", ["d.utcnow()", "d.now()", "d.today()", "x.date.today()"])
def test_every_clock_read_on_a_value_is_refused(call):
    # `utcnow` too: an instance's (or an alias's) clock method is its real class's
    text = src(f"""
        import datetime

        def f(d, x):
            return {call}
        """)
    assert "SS502" in codes(text), call


@pytest.mark.parametrize("expr", [
    'type("C", (), {}) is None',
    'type("C", (dict,), {"get": len}) == x',
    'x in (type("C", (), {}),)',
    'type(x, y, z) is x',
])
def test_three_argument_type_is_refused_inside_a_comparison_too(expr):
    # only one-argument `type(x)` as a comparison operand is approved; a class made inside
    # a comparison is still a class
    text = src(f"""
        def f(x, y, z):
            return {expr}
        """)
    assert "SS302" in codes(text), expr


def test_one_argument_type_in_a_comparison_stays_allowed():
    text = src("""
        def f(x):
            return type(x) is dict or type(x) in (int, float)
        """)
    assert codes(text) == []
