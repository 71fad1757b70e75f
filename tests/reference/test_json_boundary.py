"""JSON at the sandbox boundary against its reference, Python's `json`: for generated
values (big ints, every float, text with lone surrogates, nested non-string keys), what a step
receives and what it returns equals Python's round trip `json.loads(json.dumps(v))`, or is a
typed refusal exactly when `json.dumps(v, allow_nan=False, ensure_ascii=False)` or encoding
that text as UTF-8 fails (the boundary is UTF-8 JSON). Inputs are refused before any sandbox
("InputError"); results inside it ("NotJSONError"); neither is ever an internal error.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sandbox_kit import FORGE_STEP
from stepsmith.runner.sandbox import run_step

pytestmark = pytest.mark.usefixtures("sandbox")

COUNTS: dict[str, int] = {}
# 4300 digits pass, more do not (built lazily: hypothesis cannot repr such an int)
BIG_SPECS = [(10, 4299, 1), (10, 4299, -1), (10, 4300, 1), (10, 4300, -1), (7, 5200, 1)]
big = st.sampled_from(BIG_SPECS).map(lambda t: t[2] * t[0] ** t[1])
SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff", "\ud83d", "\ude00"]

text = st.text(st.one_of(st.characters(), st.sampled_from(SURROGATES)), max_size=6)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), big,
                    st.floats(), text)
keys = st.one_of(text, st.integers(-5, 5), st.floats(), st.booleans(), st.none(),
                 big.filter(lambda n: n > 0))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)), max_leaves=12)


def reference(v):
    """("ok", Python's round trip) or ("refused", why) -- the reference's own verdict."""
    try:
        text_ = json.dumps(v, allow_nan=False, ensure_ascii=False)
        text_.encode("utf-8")
    except (ValueError, TypeError) as exc:  # UnicodeEncodeError is a ValueError
        return "refused", exc
    return "ok", json.loads(text_)


def same(a, b) -> bool:
    """Equal as JSON documents, order and float bits included (-0.0 is not 0.0)."""
    return json.dumps(a) == json.dumps(b)


# A recipe rebuilds a value inside the step from plain, always-encodable parts (the value itself
# may be one no boundary can carry): the result direction is then the step's own value.
def recipe(v):
    if v is None or isinstance(v, bool):
        return ["c", v]
    if isinstance(v, int):
        limbs, m = [], abs(v)
        while m:
            limbs.append(m % 2**30)
            m //= 2**30
        return ["i", -1 if v < 0 else 1, limbs]
    if isinstance(v, float):
        return ["f", v.hex()]
    if isinstance(v, str):
        return ["s", [ord(c) for c in v]]
    if isinstance(v, list):
        return ["l", [recipe(x) for x in v]]
    return ["d", [[recipe(k), recipe(x)] for k, x in v.items()]]


BUILD = '''
def build(r):
    kind = r[0]
    if kind == "c":
        return r[1]
    if kind == "i":
        n = 0
        for limb in reversed(r[2]):
            n = n * 1073741824 + limb
        return r[1] * n
    if kind == "f":
        return float.fromhex(r[1])
    if kind == "s":
        return "".join(chr(c) for c in r[1])
    if kind == "l":
        return [build(x) for x in r[1]]
    out = {}
    for k, x in r[1]:
        out[build(k)] = build(x)
    return out


def echo(x):
    return x
'''


def _count(key):
    COUNTS[key] = COUNTS.get(key, 0) + 1


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    print("\nJSON boundary vs json round trip, cases:", dict(sorted(COUNTS.items())))


def like_the_reference(v, res, side: str, refusal: str) -> bool:
    """`res` (a run that sent `v` across as a `side`) is the reference's round trip, or a
    `refusal` exactly when the reference refuses `v`; True for a round trip."""
    verdict, want = reference(v)
    if verdict == "ok":
        assert res.status == "ok", (res.status, res.message)
        assert same(res.output, want)
        _count(f"{side}: equal")
        return True
    assert res.status == "error" and res.error["type"] == refusal, (res.status, res.message)
    res.message.encode("utf-8")  # the refusal itself is always UTF-8 text
    _count(f"{side}: refused")
    return False


@example(["\ud800"]).via("a lone surrogate")
@example({float("inf"): 1}).via("a non-finite key")
@example({float("nan"): 1, 1.5: 2, True: 3, None: 4, 7: 5}).via("non-string keys")
@example(10**4300).via("an int over 4300 digits")
@example({10**4300: 1}).via("a key over 4300 digits")
@example("\ud83d\ude00").via("a surrogate pair as two code points")
@example([-0.0, 5e-324, 1.7976931348623157e308]).via("float edges")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_a_result_round_trips_like_json_or_is_refused(v):
    like_the_reference(v, run_step(BUILD, "build", {"r": recipe(v)}), "result", "NotJSONError")


@example(["\ud800"])
@example({"a": [1, float("nan")]})
@example({"k\udfff": 1})
@example(10**4300)
@example({float("-inf"): 1})
@example({1: "a", "1": "b"})
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_an_input_arrives_like_json_or_is_refused(v):
    res = run_step(BUILD, "echo", {"x": v})
    if not like_the_reference(v, res, "input", "InputError"):
        assert res.exit_status is None  # refused before any sandbox started


@pytest.mark.parametrize("value,where,words", [
    ({"a": ["ok", "x\ud800"]}, "x[\"a\"][1]", "lone surrogate U+D800"),
    ({"n": float("nan")}, "x[\"n\"]", "non-finite"),
    ([10**4300], "x[0]", "4301 digits"),
    ({float("inf"): 1}, "x", "non-finite"),
    ({"k\udc00": 1}, "x", "lone surrogate U+DC00"),
])
def test_an_input_refusal_says_what_and_where(value, where, words):
    res = run_step(BUILD, "echo", {"x": value})
    assert res.status == "error" and res.error["type"] == "InputError"
    assert where in res.message and words in res.message, res.message


@pytest.mark.parametrize("expr,where,words", [
    ('{"s": ["ok", chr(55296)]}', 'result["s"][1]', "lone surrogate U+D800"),
    ('{float("inf"): 1}', "result", "non-finite"),
    ('{"n": [float("nan")]}', 'result["n"][0]', "non-finite"),
    ("[10 ** 4300]", "result[0]", "4301 digits"),
])
def test_a_result_refusal_says_what_and_where(expr, where, words):
    res = run_step(f"def f():\n    return {expr}\n", "f", {})
    assert res.status == "error" and res.error["type"] == "NotJSONError", res
    assert where in res.message and words in res.message, res.message


def test_display_text_with_lone_surrogates_is_shown_not_dropped():
    """Printed text and error messages are display text: a lone surrogate is shown as its
    escape (`\\ud800`), so everything downstream (terminal, JSON, files) stays UTF-8."""
    src = 'def f():\n    print("p" + chr(55296))\n    raise ValueError("m" + chr(57343))\n'
    res = run_step(src, "f", {})
    assert res.status == "error" and res.error["type"] == "ValueError"
    assert res.error["message"] == "m\\udfff" and res.stdout == "p\\ud800\n"
    json.dumps(res.to_json(), ensure_ascii=False).encode("utf-8")


def test_effect_payloads_cross_like_results():
    src = ('def f(effects):\n    effects.emit("e", {"id": "a", "v": chr(56000)})\n'
           '    return 1\n')
    res = run_step(src, "f", {}, effects_declared={"e": "id"})
    assert res.status == "error" and res.error["type"] == "NotJSONError"
    assert "lone surrogate" in res.message and "effect 'e'" in res.message


def test_finite_floats_keep_their_bits():
    vals = [0.1, -0.0, 5e-324, 2.0**-1074, 1e308, float.fromhex("0x1.fffffffffffffp+1023")]
    res = run_step(BUILD, "echo", {"x": vals})
    assert res.status == "ok" and [math.copysign(1, v) for v in res.output] == \
        [math.copysign(1, v) for v in vals] and res.output == vals


@pytest.mark.parametrize("forged,kind", [
    ('{"status": "ok", "output": {"s": "\\ud800"}}', "NotJSONError"),
    ('{"status": "ok", "output": ["\\ud83d\\ude00", "\\udc00"]}', "NotJSONError"),
    ('{"status": "ok", "output": NaN}', "SandboxError"),
    ('{"status": "ok", "output": [-Infinity]}', "SandboxError"),
    (('{"status": "ok", "output": 1, "effects": [{"effect": "e", "key": "a", '
     '"payload": {"id": "a", "v": "\\udfff"}}]}'), "NotJSONError"),
], ids=["surrogate", "after-a-pair", "nan", "infinity", "effect"])
def test_the_parent_refuses_what_a_forged_result_smuggles(forged, kind):
    """The harness refuses these itself; a step that replaces it (execve, the result fd) gets
    the same refusal from the parent, which trusts nothing the sandbox sends."""
    from stepsmith.runner.sandbox import _execute
    from stepsmith.runner.sandbox.result import Limits

    res = _execute(FORGE_STEP, "f", {"forged": forged}, filename="s.py", validate=False,
                   effects_declared={"e": "id"}, limits=Limits())
    assert res.status == "error" and res.error["type"] == kind, res
    json.dumps(res.to_json(), ensure_ascii=False).encode("utf-8")


def test_forged_display_text_stays_unicode():
    forged = ('{"status": "error", "stdout": "o\\ud800", "error": {"type": "E\\udc00", '
              '"message": "m\\udfff", "traceback": [{"file": "s.py", "line": 1, '
              '"function": "f\\ud800", "text": "t\\ud800"}]}}')
    from stepsmith.runner.sandbox import run_unvalidated

    res = run_unvalidated(FORGE_STEP, "f", {"forged": forged})
    assert res.status == "error" and res.error["message"] == "m\\udfff"
    assert res.stdout == "o\\ud800" and res.error["type"] == "E\\udc00"
    json.dumps(res.to_json(), ensure_ascii=False).encode("utf-8")


def test_a_container_that_contains_itself_is_refused_both_ways():
    a = [1]
    a.append(a)
    res = run_step(BUILD, "echo", {"x": a})
    assert res.status == "error" and res.error["type"] == "InputError"
    assert "x[1]: a container that contains itself" in res.message
    shared = [1]
    res = run_step(BUILD, "echo", {"x": [shared, shared]})  # shared, not cyclic: as json does
    assert res.status == "ok" and res.output == [[1], [1]]
    res = run_step("def f():\n    a = [1]\n    a.append(a)\n    return {'a': a}\n", "f", {})
    assert res.status == "error" and res.error["type"] == "NotJSONError", res
    assert "result: nested too deeply, or contains itself" in res.message
