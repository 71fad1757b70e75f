"""Cron against the reference: cronsim (Debian cron's semantics) on the same generated
expressions. Our verdict (the manifest's `check_cron`, which the inlay hint and the schema
pattern share) equals cronsim's, and the hint's meaning (`expand` + cron's AND/OR day rule)
gives cronsim's next five fire times.

Deliberate differences, pinned in `test_what_we_refuse_on_purpose`: cronsim also reads a
seconds field (6 fields), `L`/`W`/`#`, and splits at any Unicode whitespace; crontab and the
engine do not. Macros come from Vixie cron's man page (cronsim has none).
"""

from __future__ import annotations

import datetime as dt

import cronsim
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from stepsmith.runner.language.cron import describe, expand
from stepsmith.runner.manifest.cron import MACROS, check_cron, split_fields
from stepsmith.runner.manifest.cron_pattern import cron_pattern

START = dt.datetime(2026, 1, 1, 0, 0)

MONTHS = ["jan", "FEB", "Mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
DAYS = ["sun", "MON", "Tue", "wed", "thu", "fri", "sat"]


def ours(expr: str) -> bool:
    try:
        check_cron(expr)
    except ValueError:
        return False
    return True


def reference(expr: str) -> bool:
    try:
        cronsim.CronSim(expr, START)
    except cronsim.CronSimError:
        return False
    return True


def _value(hi: int, names: list[str] | None):
    nums = st.integers(0, hi + 3).map(str)
    zeros = st.tuples(st.integers(0, 2), st.integers(0, hi)).map(lambda t: "0" * t[0] + str(t[1]))
    parts = [nums, zeros]
    if names:
        parts.append(st.sampled_from(names))
    return st.one_of(*parts)


def _item(hi: int, names=None):
    v = _value(hi, names)
    step = st.integers(0, hi + 2).map(str)
    return st.one_of(
        st.just("*"), v,
        st.tuples(v, v).map("-".join),
        st.tuples(st.one_of(st.just("*"), v, st.tuples(v, v).map("-".join)), step).map("/".join),
        st.sampled_from(["", "-", "*/", "1-", "x", "**", "1--2", "*-1", "1/2/3"]),
    )


def _field(hi, names=None):
    return st.lists(_item(hi, names), min_size=1, max_size=3).map(",".join)


FIVE = st.tuples(_field(59), _field(23), _field(31), _field(12, MONTHS), _field(7, DAYS))
# Expressions in cron's own shape: day fields that can meet only in a short month are common.
SHORT_MONTHS = st.tuples(
    st.sampled_from(["0", "*/15", "5"]), st.sampled_from(["0", "7"]),
    st.sampled_from(["29", "30", "31", "30,31", "30-31", "31/2", "29-31", "28,31", "1,31"]),
    st.sampled_from(["2", "feb", "4,6,9,11", "2,4", "apr-jun/2", "*/2", "2-3", "11", "feb-feb"]),
    st.sampled_from(["*", "*/2", "*,1", "1", "0-6", "mon-fri", "*/7"]),
)
SEPARATORS = st.sampled_from([" ", "  ", "\t", " \t "])


@st.composite
def expressions(draw):
    fields = list(draw(st.one_of(FIVE, SHORT_MONTHS)))
    count = draw(st.sampled_from([5, 5, 5, 5, 4, 3, 7]))
    fields = (fields + ["*", "*"])[:count] if count != 5 else fields
    sep = draw(SEPARATORS)
    pad = draw(st.sampled_from(["", " ", "\t"]))
    return pad + sep.join(fields) + pad


@settings(max_examples=1500, deadline=None)
@given(expressions())
@example("0 0 31 2 *")
@example("0 0 30 2 *")
@example("0 0 31 4,6,9,11 *")
@example("0 0 29 2 *")
@example("0 0 31 2 1")
@example("0 0 31 2 */2")
@example("* * * *  * *")  # 7 fields with an empty one: 6 words, cronsim's seconds form
def test_verdict_matches_cronsim(expr):
    if len(expr.split()) == 6:  # cronsim's seconds field, refused on purpose (see the top)
        assert not ours(expr), expr
    else:
        assert ours(expr) == reference(expr), expr
    assert (describe(expr, "UTC") is not None) == ours(expr), "the hint and the check disagree"


def _meaning_fire_times(expr: str, start: dt.datetime, n: int) -> list[dt.datetime]:
    """What the hint says (`expand` and cron's day rule, as `describe` words it)."""
    minutes, hours, doms, months, dows = expand(expr)
    fields = split_fields(MACROS.get(expr.strip().lower(), expr))
    day_and = fields[2].startswith("*") or fields[4].startswith("*")
    out: list[dt.datetime] = []
    day = start.date()
    while len(out) < n:
        dom_ok = day.day in doms
        dow_ok = (day.isoweekday() % 7) in dows
        if day.month in months and ((dom_ok and dow_ok) if day_and else (dom_ok or dow_ok)):
            for h in hours:
                for m in minutes:
                    t = dt.datetime.combine(day, dt.time(h, m))
                    if t > start and len(out) < n:
                        out.append(t)
        day += dt.timedelta(days=1)
    return out


def _valid_field(lo: int, hi: int, names: list[str] | None = None):
    """A field crontab accepts: values in range, ranges that go up, steps of at least one."""
    v = st.integers(lo, hi)
    single = v.map(str) if not names else st.one_of(v.map(str), st.sampled_from(names))
    rng = st.tuples(v, v).map(lambda t: f"{min(t)}-{max(t)}")
    stepped = st.tuples(st.one_of(st.just("*"), rng), st.integers(1, hi - lo + 1)).map(
        lambda t: f"{t[0]}/{t[1]}")
    return st.lists(st.one_of(st.just("*"), single, rng, stepped), min_size=1,
                    max_size=3).map(",".join)


VALID = st.one_of(
    st.tuples(_valid_field(0, 59), _valid_field(0, 23), _valid_field(1, 31),
              _valid_field(1, 12, MONTHS), _valid_field(0, 7, DAYS)),
    SHORT_MONTHS)


@st.composite
def valid_expressions(draw):
    return draw(SEPARATORS).join(draw(VALID))


MEANING_RUNS = 600


def test_hint_meaning_matches_cronsim_fire_times():
    """Drawn from expressions crontab accepts (a day that never comes in the month is the
    only refusal left: `assume`), so the comparison runs on every draw; `ran` proves it did
    (a check that refused almost everything would leave it short instead of passing)."""
    ran: list[str] = []

    @settings(max_examples=MEANING_RUNS, deadline=None, database=None)
    @given(valid_expressions(),
           st.datetimes(min_value=dt.datetime(2020, 1, 1), max_value=dt.datetime(2040, 1, 1)))
    @example("0 0 */2 * 1", START)
    @example("0 0 29 2 *", START)
    @example("*/90 * * * *", START)
    @example("0 0 1-7 * 1", START)
    @example("0 8 * * 7", START)
    @example("0 0 31 2,3 *", START)
    def check(expr, start):
        assume(ours(expr))
        ran.append(expr)
        start = start.replace(second=0, microsecond=0)
        it = cronsim.CronSim(expr, start)
        assert _meaning_fire_times(expr, start, 5) == [next(it) for _ in range(5)], expr

    check()
    assert len(ran) >= MEANING_RUNS, len(ran)
    assert len(set(ran)) >= MEANING_RUNS // 2  # many different expressions, not one


@pytest.mark.parametrize("macro", sorted(MACROS))
def test_macros_mean_their_vixie_expansion(macro):
    """man 5 crontab: @yearly/@annually = 0 0 1 1 *, @monthly, @weekly = 0 0 * * 0, @daily/
    @midnight, @hourly. The hint and the check accept them alike; fire times are cronsim's for
    the expansion."""
    assert ours(macro) and ours(macro.upper()) and ours(f"  {macro}\t")
    assert describe(macro, "UTC") is not None
    five = MACROS[macro]
    it = cronsim.CronSim(five, START)
    assert _meaning_fire_times(macro, START, 5) == [next(it) for _ in range(5)]


@pytest.mark.parametrize("expr", ["@reboot", "@every 5m", "@ daily", "@dailyx", "@"])
def test_not_a_macro(expr):
    assert not ours(expr) and describe(expr, "UTC") is None


@pytest.mark.parametrize("expr", [
    "0 0 0 * * *",  # cronsim: a seconds field
    "0 0 L * *", "0 0 * * 5L", "0 0 * * 5#2",  # cronsim extensions
    "0\u00a00 * * *", "0\u20280 * * *", "0 0 * * *\n", "0\x0b0 * * *",  # not crontab separators
])
def test_what_we_refuse_on_purpose(expr):
    assert reference(expr) and not ours(expr)
    assert describe(expr, "UTC") is None


@pytest.mark.parametrize("expr", ["0 0 31 2 *", "0 0 30 2 *", "0 0 31 4,6,9,11 *"])
def test_never_firing_schedule_is_sm005_at_the_cron_value(expr):
    from stepsmith.runner.manifest import parse_manifest

    text = ("workflow: w\nversion: 1\npython: \"3.11\"\ntrigger:\n  schedule:\n"
            f"    cron: \"{expr}\"\n    timezone: UTC\n"
            "steps:\n  - id: s\n    explanation: x\n    code: steps/s.py:s\n")
    doc = parse_manifest(text)
    assert [(p.code, p.span.line, p.span.column) for p in doc.problems] == [("SM005", 6, 10)]
    assert "never fires" in doc.problems[0].message


CRON_RE = __import__("re").compile(cron_pattern())


@settings(max_examples=2000, deadline=None)
@given(expressions())
@example("0 0 30-31/1 feb *")
@example("0 0 31 2-4/2 *")
@example("0 0 31 2-5/2 *")
@example("0 0 31 feb-feb */3")
@example("0 7 * * 1-5\n")
@example(" @Weekly ")
def test_schema_pattern_is_the_check(expr):
    """The schema's `cron` pattern (what yaml-language-server and jsonschema apply) accepts
    exactly what `check_cron` accepts; test_schema_model_agreement runs it in node too."""
    assert (CRON_RE.search(expr) is not None) == ours(expr), expr


def _random_expressions(n: int, seed: int = 19) -> list[str]:
    """The same shapes as `expressions()`, drawn with a fixed seed (for one node process)."""
    import random

    rnd = random.Random(seed)
    specs = [(59, None), (23, None), (31, None), (12, MONTHS), (7, DAYS)]

    def value(hi, names):
        r = rnd.random()
        if names and r < 0.25:
            return rnd.choice(names)
        return "0" * rnd.randint(0, 1) + str(rnd.randint(0, hi + 3))

    def item(hi, names):
        kind = rnd.randint(0, 5)
        if kind == 0:
            return "*"
        if kind == 1:
            return value(hi, names)
        if kind == 2:
            return f"{value(hi, names)}-{value(hi, names)}"
        if kind == 3:
            return f"{rnd.choice(['*', value(hi, names)])}/{rnd.randint(0, hi + 2)}"
        if kind == 4:
            return f"{value(hi, names)}-{value(hi, names)}/{rnd.randint(0, 12)}"
        return rnd.choice(["", "-", "x", "1--2", "*/"])

    out = []
    for _ in range(n):
        if rnd.random() < 0.3:
            fields = [rnd.choice(["0", "*/5"]), "7", rnd.choice(["30", "31", "30,31", "29-31", "31/3"]),
                      rnd.choice(["2", "feb", "4,6,9,11", "2-4/2", "11", "*/2"]),
                      rnd.choice(["*", "*/2", "1", "*,1"])]
        else:
            fields = [",".join(item(*s) for _ in range(rnd.randint(1, 2))) for s in specs]
        if rnd.random() < 0.05:
            fields = fields[:4]
        out.append(rnd.choice([" ", "\t", "  "]).join(fields))
    return out + sorted(MACROS) + ["@reboot", "0 0 31 2 *\n", " @daily "]


def test_schema_pattern_in_ecmascript_is_the_check():
    """yaml-language-server reads the pattern as a JavaScript RegExp with the `u` flag: on 3,000
    expressions node's verdict is `check_cron`'s."""
    import json
    import os
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None and not os.environ.get("STEPSMITH_STRICT"):
        pytest.skip("node not found")
    assert node, "node not found (STEPSMITH_STRICT=1)"
    exprs = _random_expressions(3000)
    script = ("const [p, xs] = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "const r = new RegExp(p, 'u'); console.log(JSON.stringify(xs.map(x => r.test(x))));")
    out = subprocess.run([node, "-e", script], input=json.dumps([cron_pattern(), exprs]),
                         capture_output=True, text=True, check=True, timeout=120).stdout
    verdicts = json.loads(out)
    wrong = [e for e, v in zip(exprs, verdicts, strict=True) if v != ours(e)]
    assert wrong == []
    assert 300 < sum(verdicts) < len(exprs) - 300  # both verdicts well represented
