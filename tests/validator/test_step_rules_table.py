"""One row per rule: a violating snippet with its exact span, and a close snippet that must
NOT be flagged (false positives are bugs too)."""

from __future__ import annotations

import pytest
from stepsmith.runner.problems import Span
from stepsmith.runner.rules import step_rules
from stepsmith.runner.validator import MAX_SOURCE_BYTES, validate
from validator_helpers import EFFECTS, EGRESS, NONE_USE

# (code, source, (line, col, end_line, end_col), uses)
VIOLATIONS = [
    ("SS001", "def f(:\n    pass\n", (1, 6, 1, 7), ()),
    ("SS001", 'def f():\n    return "ééé" $ 1\n', (2, 17, 2, 18), ()),
    ("SS002", b"#" * (MAX_SOURCE_BYTES + 1), (1, 0, 1, 1), ()),
    ("SS004", b"def f():\n    return '\xff'\n", (2, 12, 2, 13), ()),
    ("SS004", b"def f():\n    return '\xc3\xa9\xff'\n", (2, 13, 2, 14), ()),
    ("SS101", "import os\n", (1, 7, 1, 9), ()),
    ("SS101", "from subprocess import run\n", (1, 0, 1, 26), ()),
    ("SS101", "import urllib\n", (1, 7, 1, 13), EGRESS),
    ("SS102", "from json import decoder\n", (1, 17, 1, 24), ()),
    ("SS102", "import json.decoder\n", (1, 7, 1, 19), ()),
    ("SS102", "from json.decoder import JSONDecoder\n", (1, 0, 1, 36), ()),
    ("SS103", "from . import helpers\n", (1, 0, 1, 21), ()),
    ("SS104", "from math import *\n", (1, 17, 1, 18), ()),
    ("SS105", "import urllib.request\n", (1, 7, 1, 21), NONE_USE),
    ("SS105", "import urllib.parse\n", (1, 7, 1, 19), ()),
    ("SS105", "from urllib import error\n", (1, 19, 1, 24), EGRESS + NONE_USE),
    ("SS106", "from math import fma\n", (1, 17, 1, 20), ()),  # new in 3.13; pinned 3.11
    ("SS106", "import math\n\n\ndef f(x):\n    return math.sumprod(x, x)\n", (5, 11, 5, 23), ()),
    ("SS106", "import statistics\n\n\ndef f(x):\n    return statistics.meen(x)\n",
     (5, 11, 5, 26), ()),
    ("SS201", "def f(x):\n    return x._y\n", (2, 13, 2, 15), ()),
    ("SS201", "def f(x):\n    return x.__class__\n", (2, 13, 2, 22), ()),
    ("SS201", "from re import _parser\n", (1, 15, 1, 22), ()),
    ("SS202", "def f(x):\n    return __builtins__\n", (2, 11, 2, 23), ()),
    ("SS202", "def f(__x):\n    return 1\n", (1, 6, 1, 9), ()),
    ("SS202", "def f(x):\n    return dict(__class__=x)\n", (2, 16, 2, 25), ()),
    ("SS202", "import json as __j\n", (1, 15, 1, 18), ()),
    ("SS203", "def f(x, name):\n    return getattr(x, name)\n", (2, 22, 2, 26), ()),
    ("SS203", "def f(x):\n    g = getattr\n    return g\n", (2, 8, 2, 15), ()),
    ("SS204", "def f(x):\n    return getattr(x, '_y')\n", (2, 22, 2, 26), ()),
    ("SS204", "def f(x):\n    return hasattr(x, 'gi_frame')\n", (2, 22, 2, 32), ()),
    ("SS205", "def f(x):\n    return '{0.__class__}'.format(x)\n", (2, 11, 2, 26), ()),
    ("SS205", "def f(x):\n    return str.format('{0:{1.__class__}}', x, x)\n", (2, 22, 2, 41), ()),
    ("SS206", "def f(t, x):\n    return t.format(x)\n", (2, 13, 2, 19), ()),
    ("SS301", "def f(s):\n    return eval(s)\n", (2, 11, 2, 15), ()),
    ("SS301", "def f(s):\n    run = exec\n    return run\n", (2, 10, 2, 14), ()),
    ("SS302", "def f(x):\n    return type('X', (), {})\n", (2, 11, 2, 28), ()),
    ("SS302", "def f(x):\n    return type(type(x))\n", (2, 11, 2, 24), ()),
    ("SS303", "def f(g):\n    return g.gi_frame\n", (2, 13, 2, 21), ()),
    ("SS304", "def f(c):\n    return c.mro()\n", (2, 13, 2, 16), ()),
    ("SS305", "def f(m):\n    return m.codecs\n", (2, 13, 2, 19), ()),
    ("SS401", "class A:\n    pass\n", (1, 0, 1, 8), ()),
    ("SS402", "async def f():\n    pass\n", (1, 0, 1, 14), ()),
    ("SS402", "def f(x):\n    return [y async for y in x]\n", (2, 11, 2, 31), ()),
    ("SS403", "def f():\n    global x\n", (2, 4, 2, 12), ()),
    ("SS403", "def f():\n    x = 1\n    def g():\n        nonlocal x\n    return g\n",
     (4, 8, 4, 18), ()),
    ("SS404", "def d(f):\n    return f\n\n\n@d\ndef g():\n    pass\n", (5, 1, 5, 2), ()),
    ("SS405", "X = 1\n", (1, 0, 1, 5), ()),
    ("SS405", 'if True:\n    import json\n', (1, 0, 1, 8), ()),
    ("SS406", "import datetime\n\n\ndef f():\n    datetime.datetime = datetime.datetime.min\n",
     (5, 4, 5, 21), ()),
    ("SS406", "from datetime import datetime\n\n\ndef f():\n    del datetime.now\n",
     (5, 8, 5, 20), ()),
    ("SS406", "import datetime\n\n\ndef f():\n    d = datetime\n    d.date = 1\n",
     (6, 4, 6, 10), ()),
    ("SS406", "import json\n\n\ndef f():\n    json.x += 1\n", (5, 4, 5, 10), ()),
    ("SS501", "import statistics\n\n\ndef f():\n    return statistics.NormalDist().samples(3)\n",
     (5, 35, 5, 42), ()),
    ("SS501", "def f(nd):\n    return nd.samples(3, seed=None)\n", (2, 14, 2, 21), ()),
    ("SS502", "import datetime\n\n\ndef f(d):\n    return d.now()\n", (5, 13, 5, 16), ()),
    ("SS502", "def f(dt):\n    clock = dt.datetime.today\n    return clock\n", (2, 24, 2, 29), ()),
    ("SS502", "import datetime\n\n\ndef f():\n    date = datetime.datetime.min\n"
     "    return date.today()\n", (6, 16, 6, 21), ()),
    ("SS502", "import json as date\n", (1, 15, 1, 19), ()),
    ("SS206", "def f(str, x):\n    return str.format('{0}', x)\n", (2, 15, 2, 21), ()),
    ("SS206", "from json import dumps as str\n", (1, 26, 1, 29), ()),
    ("SS503", "def f(x):\n    return id(x)\n", (2, 11, 2, 13), ()),
    ("SS503", "def f(x):\n    key = id\n    return key(x)\n", (2, 10, 2, 12), ()),
    ("SS601", "def draft(m, effects):\n    effects.emit('draft', {'invoice_id': 1})\n",
     (2, 17, 2, 24), EFFECTS),
    ("SS602", "def draft(m, effects):\n    effects.emit('draft_bill', {'id': 1})\n",
     (2, 31, 2, 40), EFFECTS),
    ("SS602", "def draft(m, effects):\n    effects.emit('draft_bill', [m])\n",
     (2, 31, 2, 34), EFFECTS),
]

# (code whose rule must stay silent, close-but-legal source, uses)
LEGAL = [
    ("SS001", "def f():\n    pass\n", ()),
    ("SS002", b"#" * MAX_SOURCE_BYTES, ()),
    ("SS004", "def f():\n    return 'é'\n".encode(), ()),
    ("SS101", "import json\nimport math, decimal, datetime, statistics, re\n", ()),
    ("SS101", "from datetime import date, timedelta\n", ()),
    ("SS102", "from json import JSONDecodeError, loads\n", ()),
    ("SS103", "import re\n", ()),
    ("SS104", "from math import floor\n", ()),
    ("SS105", ("import urllib.request\nfrom urllib.parse import urlencode\n"
               "from urllib import error\n"), EGRESS),
    ("SS106", ("import math\nfrom re import template\nfrom datetime import datetime\n\n\n"
               "def f(math, x):\n    return math.fma(x), template, datetime.now().UTC\n"), ()),
    ("SS201", "def f(x):\n    return x.y_\n", ()),
    ("SS202", "def f(x):\n    _ = x\n    _total = 1\n    return _, _total, x_\n", ()),
    ("SS202", "def _helper(x):\n    return x\n", ()),
    ("SS203", "def f(x):\n    return getattr(x, 'year', None)\n", ()),
    ("SS204", "def f(x):\n    return getattr(x, 'y_')\n", ()),
    ("SS205", "def f(x):\n    return '{0[__class__]} {0.year} {1:>{2}}'.format(x, 1, 5)\n", ()),
    ("SS205", "def f(x):\n    return '%(__class__)s' % x\n", ()),
    ("SS205", "def f(x):\n    return '{{0.__class__}} {0:%Y}'.format(x)\n", ()),  # escaped braces
    ("SS206", "def f(x):\n    return '{}'.format(x) + str.format('{:,}', x)\n", ()),
    ("SS206", "def f(x):\n    return f'{x:{x}}'\n", ()),
    ("SS301", "def f(evaluation):\n    return evaluation.eval\n", ()),
    ("SS302", "def f(x):\n    return type(x) is dict or type(x) in (int, float)\n", ()),
    ("SS302", "def f(row):\n    type = row['type']\n    return row\n", ()),
    ("SS303", "def f(g):\n    return g.frame_count\n", ()),
    ("SS304", "def f(c):\n    return c.more()\n", ()),
    ("SS305", "def f(m):\n    return m.codec, m.time(), m.re, m.error\n", ()),
    ("SS401", "def a():\n    pass\n", ()),
    ("SS402", "def f(x):\n    return [y for y in x]\n", ()),
    ("SS403", "def f():\n    x = 1\n    return x\n", ()),
    ("SS404", "def d(f):\n    return f\n\n\ndef g():\n    pass\n", ()),
    ("SS405", '"""Module docstring."""\n\n"""Another bare string."""\n', ()),
    ("SS406", "import decimal\n\n\ndef f(row):\n    decimal.getcontext().prec = 28\n"
     "    row.total = 1\n    c = decimal.getcontext()\n    c.prec = 6\n    return row\n", ()),
    ("SS501", "def f(nd, seed):\n    return nd.samples(3, seed=seed), nd.samples(2, seed=7)\n", ()),
    ("SS502", ("import datetime\nfrom datetime import date\n\n\ndef f():\n    return "
               "datetime.datetime.now(), datetime.date.today(), date.today()\n"), ()),
    ("SS502", ("from datetime import datetime as date\n\n\ndef f():\n"
               "    from datetime import date\n    return date.today()\n"), ()),
    ("SS502", ("import datetime\n\n\ndef f(row):\n    due = row['date']\n"
               "    return datetime.date.today().isoformat() > due\n"), ()),
    ("SS206", "def f(x):\n    text = str(x)\n    return str.format('{0}', text)\n", ()),
    ("SS503", ("def f(rows):\n    out = [row['id'] for row in rows]\n"
               "    for id in out:\n        print(id)\n    return dict(id=1)\n"), ()),
    ("SS503", "def f(id, x):\n    return id + x.id\n", ()),
    ("SS601", ("def draft(m, effects):\n    effects.emit('draft_bill', {'invoice_id': 1})\n"
               "    effects.emit(m['name'], {})\n    other.emit('x', {})\n"), EFFECTS),
    ("SS601", "def draft(m, effects):\n    effects.emit('anything', {})\n", ()),  # uses unknown
    ("SS602", ("def draft(m, effects):\n    effects.emit('draft_bill', {'invoice_id': 1, 'n': 2})"
               "\n    effects.emit('draft_bill', {**m})\n    effects.emit('draft_bill', m)\n"),
     EFFECTS),
]


@pytest.mark.parametrize("code,source,where,uses", VIOLATIONS,
                         ids=[f"{v[0]}-{i}" for i, v in enumerate(VIOLATIONS)])
def test_violation_is_reported_at_exact_span(code, source, where, uses):
    problems = validate(source, uses=uses)
    hits = [p for p in problems if p.code == code]
    assert hits, f"{code} not reported; got {[(p.code, p.message) for p in problems]}"
    assert hits[0].span == Span(*where), (hits[0].span, hits[0].message)
    rule = step_rules.BY_CODE[code]
    assert hits[0].rationale == rule.rationale
    assert hits[0].message and "\n" not in hits[0].message


@pytest.mark.parametrize("code,source,uses", LEGAL,
                         ids=[f"{v[0]}-{i}" for i, v in enumerate(LEGAL)])
def test_close_but_legal_is_not_flagged(code, source, uses):
    problems = validate(source, uses=uses)
    assert problems == [], [(p.code, p.span, p.message) for p in problems]


def test_every_rule_has_a_row_both_ways():
    violated = {row[0] for row in VIOLATIONS} | {"SS003"}  # SS003: test_validator_pathological
    legal = {row[0] for row in LEGAL} | {"SS003"}
    codes = set(step_rules.BY_CODE)
    assert codes <= violated, codes - violated
    assert codes <= legal, codes - legal


def test_step_is_the_enclosing_top_level_function():
    source = ("import os\n\n\ndef outer(x):\n    def inner(y):\n        return y._z\n"
              "    return inner\n\n\ndef other(x):\n    return x.__dict__\n")
    got = [(p.code, p.step) for p in validate(source)]
    assert got == [("SS101", None), ("SS201", "outer"), ("SS201", "other")]


def test_first_violation_per_step_is_the_gate_view():
    from stepsmith.runner.validator import first_violation_per_step

    source = ("import os\nimport sys\n\n\ndef a(x):\n    return x._y, eval\n\n\n"
              "def b(x):\n    return x\n\n\ndef c(x):\n    global g\n    return x.__dict__\n")
    every = validate(source)
    assert [(p.code, p.step) for p in every] == [
        ("SS101", None), ("SS101", None), ("SS201", "a"), ("SS301", "a"),
        ("SS403", "c"), ("SS201", "c")]
    first = first_violation_per_step(every)
    assert [(p.code, p.step, p.line) for p in first] == [
        ("SS101", None, 1), ("SS201", "a", 6), ("SS403", "c", 14)]


def test_python_version_selects_the_grammar():
    source = "def f(x):\n    match x:\n        case 1:\n            return x\n"
    assert validate(source, python="3.11") == []
    assert [p.code for p in validate(source, python="3.9")] == ["SS001"]


def test_problems_carry_fix_hints_without_affecting_equality():
    (p,) = validate("import os\n")
    assert p.data == {"fix": "remove-import", "title": "Remove the disallowed import",
                      "edits": [[1, 0, 2, 0, ""]], "binds": [["os", "os"]]}
    (q,) = validate("def f(nd):\n    return nd.samples(3)\n")
    assert q.data == {"fix": "add-seed", "title": "Add seed=0 to samples() (choose your own seed)",
                      "edits": [[2, 23, 2, 23, ", seed=0"]]}
