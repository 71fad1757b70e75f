"""The opt-in trace of the step file (coverage and values), end to end in the real sandbox."""

from stepsmith.runner.sandbox import Limits, run_step, run_unvalidated

TWO_BRANCHES_AND_A_LOOP = '''from decimal import Decimal


def total(kind, amounts):
    total = Decimal("0")
    if kind == "credit":
        sign = -1
    else:
        sign = 1
    for amount in amounts:
        total += Decimal(amount) * sign
    return str(total)
'''


def test_off_by_default_and_to_json_unchanged():
    res = run_step(TWO_BRANCHES_AND_A_LOOP, "total", {"kind": "debit", "amounts": ["1"]})
    assert res.status == "ok" and res.coverage is None and res.values is None
    assert set(res.to_json()) == {"status", "output", "error", "problems", "effects",
                                  "duration_ms", "cpu_ms", "stdout", "message"}


def test_coverage_lines_and_arcs_of_the_step_file():
    res = run_step(TWO_BRANCHES_AND_A_LOOP, "total", {"kind": "debit", "amounts": ["1", "2"]},
                   filename="steps/total.py", trace="coverage")
    assert res.status == "ok" and res.output == "3"
    cov = res.coverage
    assert cov.file == "steps/total.py" and not cov.truncated
    assert cov.lines == {1, 4, 5, 6, 9, 10, 11, 12}  # 7 (the credit branch) never ran
    assert {(6, 9), (10, 11), (11, 10), (10, 12), (12, -4), (-4, 5)} <= cov.arcs
    assert (6, 7) not in cov.arcs
    assert res.values is None
    assert res.to_json()["coverage"]["lines"] == [1, 4, 5, 6, 9, 10, 11, 12]


def test_values_first_and_last_iteration_and_returned_value():
    res = run_step(TWO_BRANCHES_AND_A_LOOP, "total", {"kind": "credit",
                                                      "amounts": ["1.50", "2", "3.25"]},
                   trace="values")
    assert res.status == "ok" and res.output == "-6.75"
    by_line = {v.line: v for v in res.values}
    assert by_line[5].first.assigned == (("total", "Decimal('0')"),) and by_line[5].hits == 1
    assert by_line[7].first.assigned == (("sign", "-1"),)
    assert 9 not in by_line
    loop_body = by_line[11]
    assert loop_body.hits == 3
    assert loop_body.first.assigned == (("total", "Decimal('-1.50')"),)
    assert loop_body.last.assigned == (("total", "Decimal('-6.75')"),)
    assert by_line[10].first.assigned == (("amount", "'1.50'"),)
    assert by_line[10].last.assigned == (("amount", "'3.25'"),)
    assert by_line[12].first.returned == "'-6.75'"
    assert by_line[11].label() == "total = Decimal('-1.50') … total = Decimal('-6.75') (3×)"
    assert res.coverage.lines >= {7, 11}


SECRET_STEP = '''
def f(connections):
    token = connections["crm"]
    header = "Bearer " + token
    padded = "x" * 190 + token + "y" * 50
    pair = {"auth": header, "items": [token, token]}
    return header
'''


def test_a_credential_never_appears_in_a_value():
    secret = "sk-live-0123456789abcdef"
    res = run_step(SECRET_STEP, "f", {}, connections={"crm": secret}, trace="values")
    assert res.status == "ok" and res.output == "Bearer [redacted:crm]"
    text = repr([v.to_json() for v in res.values])
    assert secret not in text
    for part in (secret[:8], secret[-8:]):  # not even the half a cut would leave
        assert part not in text
    by_line = {v.line: v for v in res.values}
    assert by_line[3].first.assigned == (("token", "'[redacted:crm]'"),)
    assert by_line[7].first.returned == "'Bearer [redacted:crm]'"
    padded = by_line[5].first.assigned[0][1]
    # the secret straddles the 200-character cut: redacted first, then cut
    assert padded.startswith("'" + "x" * 190 + "[redacted") and len(padded) <= 201


def test_a_credential_in_its_repr_form_is_redacted_too():
    secret = "pa'ss\\wo\"rd-42"  # repr escapes the backslash and a quote
    res = run_step(SECRET_STEP, "f", {}, connections={"crm": secret}, trace="values")
    text = repr([v.to_json() for v in res.values])
    assert "wo" not in text.replace("[redacted:crm]", "")
    assert "[redacted:crm]" in text


def test_values_are_capped_in_total_and_per_value():
    body = "".join(f"    v{i} = 'q' * 300\n" for i in range(400))  # 400 x 200 > 64 KiB
    src = f"""
def f(n):
    for i in range(n):
        a = str(i) * 5000
        b = [str(i) * 10] * 100
{body}    return n
"""
    res = run_step(src, "f", {"n": 3}, trace="values")
    assert res.status == "ok" and res.output == 3
    sizes = [len(n) + len(r) for v in res.values for s in (v.first, v.last) if s
             for n, r in s.assigned]
    assert max(len(r) for v in res.values for _, r in v.first.assigned) <= 201
    assert 60 * 1024 < sum(sizes) <= 64 * 1024
    by_line = {v.line: v for v in res.values}
    assert by_line[4].first.assigned[0][1].endswith("…")  # a long string: its head
    assert by_line[5].first.assigned[0][1].endswith(", …]")  # a long list: 8 items
    assert 6 in by_line and 405 not in by_line  # the cap dropped the later lines whole
    assert 405 in res.coverage.lines  # coverage is not part of the values cap


def test_the_trace_has_its_own_budget_output_near_the_limit_still_ok():
    lim = Limits(output_bytes=64 * 1024)
    src = "def f():\n    x = 'z' * 60000\n    return x\n"
    plain = run_step(src, "f", {}, limits=lim)
    traced = run_step(src, "f", {}, limits=lim, trace="values")
    assert plain.status == traced.status == "ok"
    assert plain.output == traced.output
    assert traced.coverage.lines == {1, 2, 3}


def test_errors_keep_their_coverage():
    src = "def f(x):\n    y = 10 // x\n    return y\n"
    res = run_step(src, "f", {"x": 0}, trace="coverage")
    assert res.status == "error" and res.error["type"] == "ZeroDivisionError"
    assert res.coverage.lines == {1, 2}


def test_only_the_step_files_own_frames_are_traced():
    # full Python (test-only mode): code compiled under another name is not the step file
    src = '''
def f():
    exec(compile("a = 1\\nb = 2\\n" * 200, "other.py", "exec"), {})
    return 1
'''
    res = run_unvalidated(src, "f", {}, trace="coverage")
    assert res.status == "ok"
    assert res.coverage.lines == {2, 3, 4}


def test_a_hostile_step_can_spoil_only_its_own_trace():
    # code compiled under the step's own name with lines past the file's end: the parent
    # leaves those lines out (the trace marked cut), the result stands
    forged = '''
def f():
    exec(compile("\\n" * 500 + "x = 1\\n", "step.py", "exec"), {})
    return 7
'''
    res = run_unvalidated(forged, "f", {}, trace="coverage")
    assert res.status == "ok" and res.output == 7 and res.coverage.truncated
    n = len(forged.splitlines())
    assert all(0 < line <= n for line in res.coverage.lines)
    assert all(0 < abs(end) <= n for arc in res.coverage.arcs for end in arc)
    # switching the trace off from inside changes the trace, never the result
    off = '''
import sys
def f():
    sys.settrace(None)
    total = 0
    for i in range(3):
        total += i
    return total
'''
    res = run_unvalidated(off, "f", {}, trace="coverage")
    assert res.status == "ok" and res.output == 3
    assert 6 not in res.coverage.lines


def test_a_refused_step_has_no_trace():
    res = run_step("import os\ndef f():\n    return 1\n", "f", {}, trace="coverage")
    assert res.status == "refused" and res.coverage is None
