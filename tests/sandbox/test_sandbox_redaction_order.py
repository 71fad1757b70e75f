"""Redaction covers every string field of a result from the sandbox, and
comes before truncation, so a credential straddling a cut never survives in part. The result
is forged on the harness's result fd by full Python (what an escaped step can do) and, for
stdout, printed by a validated step."""

import json

import pytest
from sandbox_kit import new_marker
from stepsmith.runner.sandbox import Limits, run_step, run_unvalidated

FORGE = '''
import os
def f(connections, forged):
    os.write(3, forged.encode())
    os._exit(0)
'''


def secret():
    return "tok-" + new_marker()


def forged(doc, key):
    return run_unvalidated(FORGE, "f", {"forged": json.dumps(doc)}, connections={"xero": key})


def problem(**over):
    p = {"code": "SS101", "message": "m", "line": 1, "column": 0, "end_line": 1,
         "end_column": 1}
    p.update(over)
    return p


@pytest.mark.parametrize("field", ["code", "step"])
def test_problem_code_and_step_must_be_known(field):
    key = secret()
    res = forged({"status": "refused", "problems": [problem(**{field: key})]}, key)
    assert res.status == "error" and res.error["type"] == "SandboxError", res
    assert key not in json.dumps(res.to_json())
    res = forged({"status": "refused", "problems": [problem(**{field: "SS9999"})]}, key)
    assert res.status == "error" and "malformed" in res.message, res


def test_problem_with_a_known_step_is_kept_and_redacted():
    key = secret()
    res = forged({"status": "refused", "problems": [problem(step="f", message="x " + key)]},
                 key)
    assert res.status == "refused", res
    assert res.problems[0].step == "f" and res.problems[0].code == "SS101"
    assert key not in json.dumps(res.to_json()) and "[redacted:xero]" in res.message


def _no_part_of(key, text):
    # not even the secret's first characters ("tok-stepsm...") survive a cut
    assert key.startswith("tok") and "tok" not in text, text[-80:]


def test_message_cut_after_redaction():
    key = secret()
    res = forged({"status": "ok", "output": 1, "message": "x" * 1995 + key}, key)
    assert res.status == "ok"
    _no_part_of(key, res.message)
    assert len(res.message) <= 2000


def test_error_message_cut_after_redaction():
    key = secret()
    doc = {"status": "error", "error": {"type": "E", "message": "x" * 9995 + key,
                                        "traceback": []}}
    res = forged(doc, key)
    assert res.status == "error"
    _no_part_of(key, res.error["message"])
    _no_part_of(key, res.message)
    assert len(res.error["message"]) <= 10_000


def test_forged_stdout_cut_after_redaction():
    key = secret()
    cap = Limits().stdout_chars
    res = forged({"status": "ok", "output": 1, "stdout": "x" * (cap + 60) + key}, key)
    assert res.status == "ok"
    _no_part_of(key, res.stdout)


def test_printed_stdout_across_the_cap_never_leaves_part_of_a_credential():
    key = secret()
    cap = 1000
    src = ("def f(n, connections):\n    print('x' * n + connections['xero'], end='')\n"
           "    return 1\n")
    for n in (cap - 3, cap - 10, cap + 60):
        res = run_step(src, "f", {"n": n}, connections={"xero": key},
                       limits=Limits(stdout_chars=cap))
        assert res.status == "ok", res
        _no_part_of(key, res.stdout)
