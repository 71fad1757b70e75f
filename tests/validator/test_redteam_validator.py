"""Red-team findings against the validator: code that passed it and reached what it must not.
Each row worked before the fix (validate() returned nothing)."""

from __future__ import annotations

import pytest
from stepsmith.runner.validator import validate

HEAD = "import datetime\nimport json\n\n\n"


def body(text: str) -> str:
    lines = "\n".join("    " + line for line in text.strip("\n").splitlines())
    return f"{HEAD}def step(x, rows):\n{lines}\n"


BYPASSES = [
    # `str.format("{0}", x)` is approved as the builtin's; a `str` the step binds itself formats
    # its own string: a parameter fed from the inputs is a data-driven format string that walks
    # dunders ("{1.__class__.__mro__}" printed the MRO in the sandbox)
    ("SS206", "def step(str, x):\n    return str.format('{0}', x)\n"),
    ("SS206", body("str = '{1.__class__.__base__}'\nreturn str.format('{0}', x)")),
    ("SS206", body("for str in rows:\n    return str.format_map('{a}', x)")),
    ("SS206", body("return [str.format('{0}', x) for str in rows]")),
    ("SS206", body("return (lambda str: str.format('{0}', x))(rows[0])")),
    ("SS206", body("if (str := rows[0]):\n    return str.format('{0}', x)")),
    ("SS206", "from json import dumps as str\n"),
    # `.today()`/`.now()` are approved on the names `date`/`datetime`; bound to an instance
    # they are the real class's (the OS clock: libfaketime held, the validator did not)
    ("SS502", body("date = datetime.datetime.now().date()\nreturn date.today()")),
    ("SS502", body("datetime = datetime.datetime.min\nreturn datetime.now()")),
    ("SS502", body("for date in [datetime.datetime.min.date()]:\n    return date.today()")),
    ("SS502", body("match x:\n    case date:\n        return date.today()")),
    ("SS502", body("try:\n    pass\nexcept Exception as date:\n    return date.today()")),
    ("SS502", body("with x as date:\n    return date.today()")),
    ("SS502", body("return (lambda date=datetime.datetime.min: date.now())()")),
    ("SS502", body("def date():\n    pass\nreturn date.today()")),
    ("SS502", body("import json as date\nreturn date.today()")),
    ("SS502", "def step(date):\n    return date.today()\n"),
    ("SS502", "import json as datetime\n"),
    # class patterns read attributes by name: binding a shape-ruled method hands it out,
    # and the later call dodges the rule (a data-driven format string; the real clock)
    ("SS206", "def step(t, x):\n    match t:\n        case str(format=fm):\n"
              "            return fm(x)\n"),
    ("SS206", body("match x:\n    case object(format_map=fm):\n        return fm(x)")),
    ("SS502", body("match datetime.datetime.min.date():\n    case object(today=t):\n"
                   "        return t()")),
    ("SS501", body("match x:\n    case object(samples=s):\n        return s(3)")),
    # memory addresses: not replayable (the runtime builtins no longer hold `id` either)
    ("SS503", body("return id([])")),
    ("SS503", body("k = id\nreturn k(x)")),
    ("SS503", body("return sorted(rows, key=id)")),
]


@pytest.mark.parametrize("code,source", BYPASSES, ids=[f"{b[0]}-{i}" for i, b in
                                                       enumerate(BYPASSES)])
def test_bypass_is_refused(code, source):
    problems = validate(source)
    assert code in {p.code for p in problems}, [(p.code, p.message) for p in problems]


LEGAL = [
    # the everyday spellings stay legal
    "import datetime\nfrom datetime import date\n\n\ndef step(x):\n"
    "    return datetime.datetime.now(), datetime.date.today(), date.today()\n",
    "from datetime import date, datetime\n\n\ndef step(x):\n"
    "    return datetime.now(), date.today()\n",
    "def step(x):\n    from datetime import date\n    return date.today()\n",
    "import datetime\n\n\ndef step(row):\n    date = row['date']\n    return date\n",
    "def step(x):\n    return str.format('{0:,}', x) + str(x)\n",
    "def step(rows):\n    for id in [r['id'] for r in rows]:\n        print(id)\n"
    "    return {'id': 1}\n",
    "def step(id):\n    return id\n",
]


@pytest.mark.parametrize("source", LEGAL)
def test_everyday_code_is_not_flagged(source):
    assert validate(source) == [], [(p.code, p.message) for p in validate(source)]


def test_the_rebinding_must_be_in_the_same_function():
    # another top-level function binding `date` or `str` locally changes nothing here
    source = ("import datetime\n\n\ndef a(x):\n    date = x\n    str = x\n    return date, str\n\n\n"
              "def b(x):\n    return datetime.date.today(), str.format('{0}', x)\n")
    assert validate(source) == []
