"""The report's pure formatting agrees with coverage.py's own functions on
generated inputs (hypothesis): the Missing column (`coverage.results.format_lines`) and the
displayed percentage (`coverage.results.display_covered`, precision 0)."""

from coverage.results import display_covered, format_lines
from hypothesis import given, settings
from hypothesis import strategies as st
from stepsmith.runner.coverage import report


@st.composite
def _file(draw):
    statements = sorted(draw(st.sets(st.integers(1, 60), min_size=1, max_size=30)))
    missing = draw(st.sets(st.sampled_from(statements)))
    arcs: dict[int, set[int]] = {}
    for line in draw(st.sets(st.sampled_from(statements), max_size=8)):
        dests = draw(st.sets(st.sampled_from(statements) | st.integers(-60, -1), min_size=1,
                             max_size=3))
        arcs[line] = dests - {line}
    return statements, missing, {k: v for k, v in arcs.items() if v}


@settings(max_examples=400, deadline=None)
@given(_file())
def test_missing_column_is_format_lines(f):
    statements, missing, arcs = f
    flat = [(a, d) for a, ds in arcs.items() for d in ds]
    want = format_lines(statements, missing, arcs=[(a, sorted(ds)) for a, ds in arcs.items()])
    assert report.format_missing(statements, missing, flat) == want


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.floats(0, 100, allow_nan=False),
                 st.builds(lambda n, d: 100.0 * n / d, st.integers(0, 500),
                           st.integers(1, 500)).filter(lambda x: x <= 100)))
def test_display_percent_is_display_covered(pc):
    assert report.display_percent(pc) == display_covered(pc, 0)
