"""run_step contract: refusal before any sandbox, typed results, effects, conversions."""

import inspect

import pytest
from stepsmith.runner import sandbox
from stepsmith.runner.sandbox import (
    Limits,
    StepResult,
    cmdline,
    process,
    run_step,
    run_unvalidated,
)


@pytest.fixture
def no_sandbox(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("a sandbox was started")

    monkeypatch.setattr(process, "supervise", boom)


def test_refused_before_any_sandbox(no_sandbox):
    res = run_step("import os\ndef f():\n    return os.getcwd()\n", "f", {})
    assert res.status == "refused"
    assert res.problems[0].code == "SS101" and res.problems[0].line == 1


def test_input_too_large_before_any_sandbox(no_sandbox):
    res = run_step("def f(x):\n    return 1\n", "f", {"x": "a" * (512 * 1024)})
    assert res.status == "input_too_large" and "limit" in res.message


def test_python_version_mismatch_is_clear(no_sandbox):
    res = run_step("def f():\n    return 1\n", "f", {}, python="3.12")
    assert res.status == "unavailable" and "3.12" in res.message and "3.11" in res.message


def test_missing_bwrap_refuses_to_run(monkeypatch, no_sandbox):
    monkeypatch.setattr(cmdline, "_layouts", {})
    monkeypatch.setattr(cmdline, "_common", None)
    monkeypatch.setattr(cmdline, "find_bwrap", lambda: None)
    res = run_step("def f():\n    return 1\n", "f", {})
    assert res.status == "unavailable"
    assert "apt-get install bubblewrap" in res.message
    monkeypatch.setattr(sandbox, "_available", None)
    assert sandbox.sandbox_available() == (
        False, ("bwrap not found: apt-get install bubblewrap "
                "(stepsmith never runs a step outside its sandbox)"))
    monkeypatch.setattr(sandbox, "_available", None)


def test_run_step_cannot_reach_unvalidated_mode():
    params = inspect.signature(run_step).parameters
    assert "validate" not in params and not any(
        p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params.values())
    with pytest.raises(TypeError):
        run_step("def f():\n    return 1\n", "f", {}, validate=False)


def test_harness_checks_inside_the_sandbox():
    # Skip the parent's validation (internal path) to show the harness refuses on its own.
    res = sandbox._execute("import os\ndef f():\n    return 1\n", "f", {}, filename="s.py",
                           validate=True, limits=Limits())
    assert res.status == "refused" and res.problems[0].code == "SS101"
    res = sandbox._execute("def f():\n    return f.__globals__\n", "f", {},
                           filename="s.py", validate=True, limits=Limits())
    assert res.status == "refused" and res.problems[0].code == "SS201"
    assert (res.problems[0].line, res.problems[0].column) == (2, 11)
    # a name built at run time is the restricted getattr's to refuse (codecheck.py)
    res = sandbox._execute("def f():\n    return getattr(f, '_' + '_globals__')\n", "f", {},
                           filename="s.py", validate=True, limits=Limits())
    assert res.status == "error" and res.error["type"] == "AttributeError"


def test_restricted_builtins_hold_without_the_validator():
    # The restricted layer alone (no validator): no open/eval/exec/compile, no os.
    src = '''
def f():
    out = {}
    for name in ["open", "eval", "exec", "compile", "globals", "locals", "vars", "dir",
                 "input", "breakpoint", "help", "memoryview", "setattr", "delattr",
                 "__build_class__", "super", "exit"]:
        out[name] = name in __builtins__
    for mod in ["os", "sys", "builtins", "importlib", "json.decoder", "urllib.request"]:
        try:
            __import__(mod)
            out[mod] = True
        except ImportError:
            out[mod] = False
    try:
        getattr(f, "__globals__")
        out["getattr-dunder"] = True
    except AttributeError:
        out["getattr-dunder"] = False
    try:
        type("X", (), {})
        out["type3"] = True
    except TypeError:
        out["type3"] = False
    out["getattr-plain"] = getattr(1, "real")
    return out
'''
    res = sandbox._execute(src, "f", {}, filename="s.py", validate=False, restricted=True,
                           limits=Limits())
    assert res.status == "ok", res
    out = res.output
    assert out.pop("getattr-plain") == 1
    assert not any(out.values()), out
    src2 = "def f():\n    return [getattr(1, 'real'), type(1) is int]\n"
    assert run_step(src2, "f", {}).output == [1, True]


def test_error_traceback_maps_to_the_authors_file():
    src = '''import json

def parse(text):
    return json.loads(text)

def f(raw):
    data = parse(raw)
    return data["missing"]
'''
    res = run_step(src, "f", {"raw": "{bad"}, filename="steps/match.py")
    assert res.status == "error"
    assert res.error["type"] == "JSONDecodeError"
    assert res.error["traceback"] == [
        {"file": "steps/match.py", "line": 7, "function": "f", "text": "data = parse(raw)"},
        {"file": "steps/match.py", "line": 4, "function": "parse", "text": "return json.loads(text)"},
    ]
    res = run_step(src, "f", {"raw": "{}"}, filename="steps/match.py")
    assert res.error["type"] == "KeyError" and res.error["traceback"][-1]["line"] == 8


def test_decimal_convention_and_json_output():
    src = '''
import decimal, datetime
def f(amount, when):
    total = decimal.Decimal(amount) * 2
    day = datetime.date.fromisoformat(when)
    return {"total": total, "day": day, "pair": (1, 2), "nested": {"ok": [True, None, 1.5]}}
'''
    res = run_step(src, "f", {"amount": "1250.05", "when": "2026-12-01"})
    assert res.output == {"total": "2500.10", "day": "2026-12-01", "pair": [1, 2],
                          "nested": {"ok": [True, None, 1.5]}}


@pytest.mark.parametrize("expr,fragment", [
    ("{1, 2}", "set"),
    ("float('nan')", "non-finite"),
    ("f", "function"),
])
def test_non_json_output_is_an_error(expr, fragment):
    res = run_step(f"def f():\n    return {expr}\n", "f", {})
    assert res.status == "error" and fragment in res.error["message"]


def test_effects_recorded_and_checked():
    src = '''
def f(invoices, effects):
    for inv in invoices:
        effects.emit("draft_bill", {"invoice_id": inv, "amount": "1.00"})
    return len(invoices)
'''
    res = run_step(src, "f", {"invoices": ["A", "B"]}, effects_declared={"draft_bill": "invoice_id"})
    assert res.status == "ok" and res.output == 2
    assert res.effects == [
        {"effect": "draft_bill", "key": "A", "payload": {"invoice_id": "A", "amount": "1.00"}},
        {"effect": "draft_bill", "key": "B", "payload": {"invoice_id": "B", "amount": "1.00"}}]
    res = run_step(src, "f", {"invoices": ["A"]}, effects_declared=["other"])
    assert res.status == "error" and "not declared" in res.error["message"]
    missing_key = src.replace('"invoice_id": inv', '"id": inv')
    res = run_step(missing_key, "f", {"invoices": ["A"]}, effects_declared={"draft_bill": "invoice_id"})
    assert res.status == "error" and "key field" in res.error["message"]
    swallowed = '''
def f(effects):
    try:
        effects.emit("undeclared", {"x": 1})
    except Exception:
        pass
    return "fine"
'''
    res = run_step(swallowed, "f", {}, effects_declared={"draft_bill": "invoice_id"})
    assert res.status == "error" and res.error["type"] == "EffectError"


def test_missing_function_and_bad_arguments_are_errors():
    res = run_step("def g():\n    return 1\n", "f", {})
    assert res.status == "error" and res.error["type"] == "NameError"
    res = run_step("def f(a):\n    return a\n", "f", {"b": 1})
    assert res.status == "error" and res.error["type"] == "TypeError"


def test_result_shape():
    res = run_step("def f():\n    return 1\n", "f", {})
    assert isinstance(res, StepResult) and res.ok and res.duration_ms > 0
    d = res.to_json()
    assert d["status"] == "ok" and d["output"] == 1 and d["problems"] == []


def test_unvalidated_mode_has_real_python():
    res = run_unvalidated("import os, sys\ndef f():\n    return [os.getcwd(), sys.flags.no_site]\n", "f", {})
    assert res.output == ["/", 1]


def test_runtime_identity():
    ident = sandbox.runtime_identity()
    assert set(ident) == {"harness_version", "python_version", "harness_source_sha256"}
    assert len(ident["harness_source_sha256"]) == 64


def test_unicode_round_trip_and_lone_surrogates():
    src = 'def f(s):\n    return {"s": s, "k\u00e9": "\u00e9\\U0001d11e", "ctl": "a\\x00b\\n"}\n'
    res = run_step(src, "f", {"s": "h\u00e9llo \u2713 \U0001d11e \"q\" \\"})
    assert res.status == "ok", res
    assert res.output == {"s": "h\u00e9llo \u2713 \U0001d11e \"q\" \\", "k\u00e9": "\u00e9\U0001d11e",
                          "ctl": "a\x00b\n"}
    # a lone surrogate is not Unicode text: UTF-8 JSON cannot carry it (issue 19); it used to
    # come back as a str no JSON writer downstream could encode (tests/reference/
    # test_json_boundary.py holds every case to Python's json)
    res = run_step('def f():\n    return {"k": "\\ud800"}\n', "f", {})
    assert res.status == "error" and res.error["type"] == "NotJSONError"
    assert 'result["k"]: a lone surrogate U+D800' in res.message


def test_big_print_does_not_cost_the_result():
    src = 'def f():\n    print("\U0001d11e" * 70000)\n    return "x" * 200000\n'
    res = run_step(src, "f", {})
    assert res.status == "ok" and len(res.output) == 200000
    assert res.stdout.startswith("[stdout dropped")


def test_stdlib_lazy_imports_work_but_do_not_reach_the_step():
    # date.__format__ -> strftime imports `time` from C through the step's __import__.
    src = '''
import datetime
def f(when):
    d = datetime.date.fromisoformat(when)
    t = datetime.datetime.strptime("01/12/2026 07:30", "%d/%m/%Y %H:%M")
    return [f"{d:%d %B %Y}", d.strftime("%A"), t.isoformat()]
'''
    res = run_step(src, "f", {"when": "2026-12-01"})
    assert res.status == "ok", res
    assert res.output == ["01 December 2026", "Tuesday", "2026-12-01T07:30:00"]
    res = run_step("import time\ndef f():\n    return 1\n", "f", {})
    assert res.status == "refused"
    res = sandbox._execute("def f():\n    import time\n    return 1\n", "f", {}, filename="s.py",
                           validate=False, restricted=True, limits=Limits())
    assert res.status == "error" and res.error["type"] == "ImportError"
