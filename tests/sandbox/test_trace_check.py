"""The parent's check of a raw trace (pure: what a forged or broken harness could send)."""

from stepsmith.runner.sandbox import trace
from stepsmith.runner.sandbox.redact import Redactor

SRC = "def f(connections):\n    token = connections['a']\n    return token\n"


def conf(mode="values"):
    return trace.request(mode, SRC, "steps/f.py")


def good(**over):
    raw = {"lines": [1, 2, 3], "arcs": [[-1, 2], [2, 3], [3, -1]], "truncated": False,
           "values": [{"line": 2, "hits": 1, "first": {"assigned": [["token", "'k'"]],
                                                       "returned": None}}]}
    raw.update(over)
    return raw


def test_a_well_formed_trace_is_typed():
    cov, vals = trace.check(good(), conf(), Redactor(None))
    assert cov.file == "steps/f.py" and cov.lines == {1, 2, 3} and (2, 3) in cov.arcs
    assert vals[0].line == 2 and vals[0].first.assigned == (("token", "'k'"),)
    cov2, vals2 = trace.check(good(), conf("coverage"), Redactor(None))
    assert cov2 == cov and vals2 is None


def test_malformed_traces_are_dropped_whole():
    bad = [
        good(lines=["2"]),
        good(lines=[True]),
        good(arcs=[[2, "3"]]),
        good(arcs=[[2, 3, 4]]),
        good(file="/etc/passwd"),  # the trace names no file at all
        good(values=[{"line": 2, "hits": 1, "first": {"assigned": [["secret_label", "'x'"]]}}]),
        good(values=[{"line": 2, "hits": 0, "first": {"assigned": []}}]),
        good(values=[{"line": 2, "hits": 1, "first": {"assigned": [["token", 5]]}}]),
        "not a dict",
    ]
    for raw in bad:
        assert trace.check(raw, conf(), Redactor(None)) == (None, None), raw


def test_values_redacted_then_cut():
    secret = "s" * 30 + "-credential"
    long = "'" + "x" * 185 + secret + "y" * 40 + "'"
    raw = good(values=[{"line": 2, "hits": 2, "first": {"assigned": [["token", long]]},
                        "last": {"assigned": [["token", repr(secret)]], "returned": None}},
                       {"line": 3, "hits": 1, "first": {"assigned": [], "returned": secret}}])
    _, vals = trace.check(raw, conf(), Redactor({"a": secret}))
    text = repr([v.to_json() for v in vals])
    assert "credential" not in text and "sssss" not in text
    assert vals[0].first.assigned[0][1].startswith("'" + "x" * 185 + "[redact")
    assert len(vals[0].first.assigned[0][1]) == trace.MAX_REPR + 1
    assert vals[0].last.assigned == (("token", "'[redacted:a]'"),)
    assert vals[1].first.returned == "[redacted:a]"


def test_a_file_that_does_not_parse_asks_for_no_trace():
    assert trace.request("coverage", "def (:\n", "x.py") is None


def test_an_arc_with_two_negative_ends_keeps_the_trace():
    """A generator closed unfinished enters and leaves without a line: coverage.py's tracer
    records such arcs too. The trace is kept whole (issue 19 (a): it used to be dropped)."""
    cov, vals = trace.check(good(arcs=[[-1, 2], [2, 3], [-2, -2], [-2, -3], [3, -1]]), conf(),
                            Redactor(None))
    assert cov is not None and cov.lines == {1, 2, 3} and (-2, -2) in cov.arcs
    assert vals is not None


def test_line_numbers_outside_the_file_are_dropped_one_by_one():
    """Never the whole trace for one odd item (issue 19 (a)): a line or an arc end outside
    the file (0, past its end) is left out, the rest is kept and the trace says it is cut."""
    for odd in (good(lines=[1, 4, 2, 0, 3]), good(arcs=[[-1, 2], [2, 99], [0, 2], [2, 3],
                                                        [3, -1]])):
        cov, vals = trace.check(odd, conf(), Redactor(None))
        assert cov is not None and cov.lines == {1, 2, 3} and cov.truncated, odd
        assert {(2, 99), (0, 2)}.isdisjoint(cov.arcs) and (2, 3) in cov.arcs
        assert vals is not None
