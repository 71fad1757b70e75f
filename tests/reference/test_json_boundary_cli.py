"""JSON at the sandbox boundary through the CLI (a real `stepsmith` process): a lone
surrogate, a NaN or Infinity (as a value or a dict key) and an int over 4,300 digits, returned
by a step or given to it, are each ONE fixture's typed result with a clear message; the other
fixtures still run, `--format json` prints exactly one document, and nothing is an internal
error (exit 2). Unit level and the differential: test_json_boundary.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from wfkit import AT, add_case, demo_manifest, write_workflow

pytestmark = pytest.mark.usefixtures("sandbox")

CODE = '''
def surrogate(x):
    return {"s": "ok" + chr(0xD800), "x": x}


def inf_key(x):
    return {float("inf"): 1, "x": x}


def nan_key(x):
    return {float("nan"): 1}


def huge(x):
    return 10 ** 4300


def echo(x):
    return {"x": x}
'''


def _fixture(inputs_json: str) -> str:
    return f'{{"inputs": {inputs_json}, "evaluation_time": "{AT}", "expected": {{"output": {{}}}}}}'


def workflow(root):
    steps = [{"id": s, "explanation": f"Boundary case {s}.", "code": f"steps/b.py:{s}",
              "inputs": {"x": "1"}} for s in ("surrogate", "inf_key", "nan_key", "huge", "echo")]
    steps.append({"id": "add", "explanation": "Add two exact amounts.",
                  "code": "steps/calc.py:add", "inputs": {"a": "sources.numbers", "b": "0.50"}})
    from wfkit import ADD_CODE

    plain = _fixture('{"x": 1}')
    return write_workflow(root, demo_manifest(steps=steps),
                          {"steps/b.py": CODE, "steps/calc.py": ADD_CODE}, {
                              "surrogate/a": plain, "inf_key/a": plain, "nan_key/a": plain,
                              "huge/a": plain,
                              "echo/surrogate": _fixture('{"x": ["ok", "\\ud800"]}'),
                              "echo/nan": _fixture('{"x": {"v": NaN}}'),
                              "echo/inf": _fixture('{"x": -Infinity}'),
                              "echo/bigint": _fixture('{"x": %s}' % ("7" * 5000)),
                              "add/simple": add_case("1.00", None, "1.50")})


def stepsmith(*argv, stdin=None):
    return subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", *map(str, argv)],
                          capture_output=True, text=True, timeout=120, input=stdin,
                          check=False)


EXPECTED = {  # case id -> (outcome, words in its messages)
    "surrogate::a": ("failed", 'NotJSONError: result["s"]: a lone surrogate U+D800'),
    "inf_key::a": ("failed", "NotJSONError: result: dict key: the non-finite float inf"),
    "nan_key::a": ("failed", "NotJSONError: result: dict key: the non-finite float nan"),
    "huge::a": ("failed", "NotJSONError: result: an integer of 4301 digits"),
    "echo::surrogate": ("failed", "InputError: input x[1]: a lone surrogate U+D800"),
    "echo::nan": ("failed", 'InputError: input x["v"]: the non-finite float nan'),
    "echo::inf": ("failed", "InputError: input x: the non-finite float -inf"),
    "echo::bigint": ("error", ("1:18: inputs.x: an integer of 5000 digits is over Python's "
                               "4300-digit limit")),
    "add::simple": ("passed", ""),
}


def test_test_json_gives_one_document_with_a_typed_result_per_fixture(tmp_path):
    wf = workflow(tmp_path / "wf")
    p = stepsmith("test", wf, "--format", "json")
    assert p.returncode == 1, (p.stdout[-2000:], p.stderr[-2000:])
    doc = json.loads(p.stdout)  # exactly one document
    got = {r["id"].split("::", 1)[1]: r for r in doc["results"]}
    assert set(got) == set(EXPECTED)
    for case, (outcome, words) in EXPECTED.items():
        r = got[case]
        assert r["outcome"] == outcome, (case, r)
        assert words in " ".join(r["messages"]), (case, r["messages"])
    # a fixture whose inputs cannot cross is the fixture's fault: no pending change for it
    pending = {p.split("/pending/", 1)[1] for p in doc["pending"]}
    assert not any(p.startswith("echo/") for p in pending)
    assert "surrogate/a.json" in pending
    assert "internal error" not in p.stdout + p.stderr


def test_test_text_mode_reports_every_fixture(tmp_path):
    p = stepsmith("test", workflow(tmp_path / "wf"))
    assert p.returncode == 1, p.stderr
    assert "internal error" not in p.stdout + p.stderr
    assert "lone surrogate U+D800" in p.stdout and "1 passed" in p.stdout


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_run_of_a_step_returning_a_lone_surrogate(tmp_path, fmt):
    wf = workflow(tmp_path / "wf")
    p = stepsmith("run", wf, "--step", "surrogate", "--inputs", "-", "--at", AT,
                  "--format", fmt, stdin='{"x": 1}')
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert "internal error" not in p.stdout + p.stderr
    if fmt == "json":
        res = json.loads(p.stdout)
        assert res["status"] == "error" and res["error"]["type"] == "NotJSONError"
    else:
        assert "lone surrogate U+D800" in p.stdout + p.stderr


@pytest.mark.parametrize("given,words", [
    ('{"x": "\\udfff"}', "InputError: input x: a lone surrogate U+DFFF"),
    ('{"x": [NaN]}', "InputError: input x[0]: the non-finite float nan"),
    ('{"x": %s}' % ("1" * 4301), "<stdin>:1:7: an integer of 4301 digits"),
])
def test_run_with_inputs_the_boundary_refuses(tmp_path, given, words):
    wf = workflow(tmp_path / "wf")
    p = stepsmith("run", wf, "--step", "echo", "--inputs", "-", "--at", AT, "--format", "json",
                  stdin=given)
    assert p.returncode in (1, 2), (p.stdout, p.stderr)
    doc = json.loads(p.stdout)
    assert words in json.dumps(doc, ensure_ascii=False), doc
    assert "internal error" not in p.stdout + p.stderr


def test_a_document_that_could_not_be_written_still_leaves_one(monkeypatch):
    """`--format json`: when a command's own document fails to encode (text no UTF-8 encoder
    takes), nothing reached stdout, so the guard's error document is printed -- before, the
    failed write counted as written and stdout stayed empty."""
    import io

    from stepsmith.runner.cli.jsonmode import guarded

    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="utf-8", newline="\n"))

    def command():
        try:
            sys.stdout.write(json.dumps({"x": "\ud800"}, ensure_ascii=False) + "\n")
        except UnicodeEncodeError as exc:  # what cli._dispatch_args does with any Exception
            print(f"stepsmith test: internal error: {type(exc).__name__}", file=sys.stderr)
            return 2
        return 0

    assert guarded(["test", "--format", "json"], command) == 2
    sys.stdout.flush()
    doc = json.loads(raw.getvalue().decode("utf-8"))
    assert doc["exit_code"] == 2 and doc["command"] == "test"


def test_record_refuses_inputs_the_boundary_refuses(tmp_path):
    wf = workflow(tmp_path / "wf")
    p = stepsmith("record", wf, "--step", "echo", "--inputs", "-", "--at", AT, "--name", "s1",
                  stdin='{"x": "\\ud800"}')
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert "not recorded: input x: a lone surrogate U+D800" in p.stderr
    assert not (wf / "fixtures" / "echo" / "s1.json").exists()


@pytest.mark.parametrize("source", ['"1.2\\ud8005"', "NaN"], ids=["surrogate", "nan"])
@pytest.mark.parametrize("command", ["run-workflow", "record"])
def test_a_workflow_case_whose_source_cannot_cross(tmp_path, command, source):
    """The case's sources feed step `add`: its inputs are refused for that step, typed, before
    any hashing or storing (both crashed the whole command before)."""
    from wfkit import FULL_FILES, RUN_CASE, run_manifest

    wf = write_workflow(tmp_path / "wf", run_manifest(), dict(FULL_FILES), {
        "_workflow/day1": json.dumps(RUN_CASE).replace('"1.25"', source)})
    p = stepsmith(command, wf, "--case", "day1")
    out = p.stdout + p.stderr
    assert "internal error" not in out, out
    assert "input a: " in out and ("lone surrogate U+D800" in out or "non-finite" in out), out
