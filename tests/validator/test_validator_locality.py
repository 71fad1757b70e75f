"""Every rule is local to one top-level statement: validating one top-level function's text
with `line_offset=<its first line - 1>` gives exactly the problems a whole-file validation
reports inside it (the language server's incremental validation relies on this)."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stepsmith.runner.validator import StepUse, chunks, validate
from stepsmith.runner.validator.engine import validate_whole_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

TOP_LEVEL = [
    '"""Match invoices to purchase orders."""\n',
    "import json\n",
    "from decimal import Decimal, ROUND_HALF_UP\n",
    "import datetime, re, statistics\n",
    "import urllib.request\n",
    "import os\n",
    "from json import codecs\n",
    "TOLERANCE = Decimal('0.01')\n",
    "class Matcher:\n    def match(self):\n        return self.__dict__\n",
]

FUNCTIONS = [
    '''def match(invoices, purchase_orders, tolerance):
    """Pair each invoice with the open purchase order it settles."""
    limit = Decimal(tolerance)
    open_orders = {po["po_number"]: po for po in purchase_orders if po["status"] == "open"}
    results = []
    for invoice in invoices:
        amount = Decimal(invoice["amount"]).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        po = open_orders.get(invoice["po_number"])
        if po is None or abs(Decimal(po["amount"]) - amount) > limit:
            results.append({"invoice_id": invoice["invoice_id"], "status": "unmatched"})
        else:
            results.append({"invoice_id": invoice["invoice_id"], "status": "matched"})
    return results
''',
    '''def overdue(invoices, today):
    """Invoices past their due date, oldest first — «échéance dépassée»."""
    day = datetime.date.fromisoformat(today)
    late = [i for i in invoices if datetime.date.fromisoformat(i["due"]) < day]
    return sorted(late, key=lambda i: i["due"])
''',
    '''def risk(amounts, seed):
    spread = statistics.NormalDist(statistics.fmean(amounts), 1.0)
    return spread.samples(5, seed=seed), spread.samples(5)
''',
    '''def leaky(x, gen):
    """Ünïcödé before the violations."""
    a = x.__class__
    b = getattr(x, "_" + "_class__")
    c = "{0.__class__}".format(x)
    d = gen.gi_frame.f_back.f_globals
    e = type("C", (), {})
    return datetime.datetime.mro()[1].now(), a, b, c, d, e
''',
    '''def fetch(url):
    import urllib.request
    from urllib import parse
    return urllib.request.urlopen(parse.quote(url))
''',
    '''def nested(items):
    def inner(item):
        global state
        return item._private
    match items:
        case object(__class__=t):
            return t
        case {"__class__": value, **rest}:
            return value, rest
    return [inner(i) for i in items]
''',
    '''def decorated_target(x):
    return x
''',
    '''@decorated_target
def decorated(x):
    return eval(x)
''',
    '''async def later(x):
    await x
    return [y async for y in x]
''',
    '''def labels(rows):
    pattern = re.compile(r"INV-(\\d+)")
    out = []
    for row in rows:
        m = pattern.search(row["ref"])
        out.append(f"{row['id']}: {m.group(1) if m else '—'} ({row['total']:,.2f})")
        out.append("{0[id]} / {1}".format(row, len(out)))
        out.append(fmt.format(row) if (fmt := row.get("fmt")) else "")
    return out
''',
    '''def aliases(x):
    m = [json][0]
    t = type
    g = getattr
    s = x.samples
    return m.codecs, t, g, s, __builtins__, type(x) is dict
''',
]

USES = st.sampled_from([
    (),
    (StepUse("fetch", "fetch", "public_egress"),),
    (StepUse("match", "match", "none"), StepUse("fetch", "fetch", "public_egress")),
])


def function_chunks(source: str):
    """(first line, last line) of each top-level function, decorators included."""
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            yield node.name, first, node.end_lineno


def assert_local(source: str, uses=()) -> None:
    whole = validate_whole_file(source, uses=uses)
    assert validate(source, uses=uses) == whole  # the statement cache changes nothing
    assert not any(p.code.startswith("SS0") for p in whole)
    lines = source.splitlines(keepends=True)
    for name, first, last in function_chunks(source):
        alone = validate("".join(lines[first - 1:last]), uses=uses, line_offset=first - 1)
        inside = [p for p in whole if first <= p.line <= last]
        assert alone == inside, name
        assert all(p.step == name for p in alone)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    top=st.lists(st.sampled_from(TOP_LEVEL), max_size=4),
    funcs=st.lists(st.sampled_from(FUNCTIONS), min_size=1, max_size=6),
    order=st.randoms(use_true_random=False),
    gaps=st.lists(st.sampled_from(["\n", "\n\n", "\n# a comment — ok\n\n"]), min_size=12, max_size=12),
    uses=USES,
)
def test_function_alone_reports_what_the_whole_file_reports_inside_it(top, funcs, order, gaps, uses):
    chunks = top + funcs
    order.shuffle(chunks)
    source = "".join(chunk + gaps[i % len(gaps)] for i, chunk in enumerate(chunks))
    assert_local(source, uses)


def test_bundled_examples_are_local_and_clean():
    files = sorted(EXAMPLES.glob("*/steps/*.py"))
    egress = (StepUse("x", "x", "public_egress"),)
    for path in files:
        source = path.read_text(encoding="utf-8")
        assert_local(source, egress)
        assert validate(source, uses=egress) == [], path


TRICKY = [
    # column-0 lines inside a string: the split is wrong, the chunk before fails to parse
    'def f(x):\n    s = """\nx = eval(1)\ndef g(): pass\n"""\n    return x._y\n',
    "def f(x):\n    s = (1,\n2)\n    return x._y\n",
    "def f(x):\n    s = 1 + \\\n2\n    return x._y\n",
    "@a\n@b(\n    1)\ndef f(x):\n    return x._y\n\n\n@c\ndef g():\n    return eval\n",
    ("if x:\n    import os\nelif y:\n    pass\nelse:\n    pass\ntry:\n    pass\nexcept E:\n"
     "    pass\nfinally:\n    pass\n"),
    ("# leading comment\n\nimport json\n# between\ndef f(x):\n# col-0 comment inside\n"
     "    return x._y\n"),
    "import json\r\n\r\ndef f(x):\r\n    return x._y\r\n",
    "import json\r\rdef f(x):\r    return x._y\r",
    "def f(x):\n    return x._y\ndef g(:\n    pass\n",
    "def f(x):\n\tif x:\n\t\treturn x._y\n",
    "x = 1; y = 2\ndef f(): return __builtins__\n",
]


def test_chunks_concatenate_back_to_the_text():
    for source in TRICKY:
        parts = chunks.split(source)
        if parts is not None:
            assert "".join(c for c, _ in parts) == source
            assert [line for _, line in parts] == sorted(line for _, line in parts)


def test_chunked_validation_equals_whole_file_on_tricky_splits():
    for source in TRICKY:
        for uses in ((), (StepUse("f", "f", "public_egress"),)):
            assert validate(source, uses=uses) == validate_whole_file(source, uses=uses), source


def test_decorated_functions_stay_in_one_chunk():
    parts = chunks.split("@a\n@b(\n    1)\ndef f(x):\n    return x\n\n\n@c\ndef g():\n    pass\n")
    assert [line for _, line in parts] == [0, 7]


def test_docstring_with_column_0_lines_merges_chunks_instead_of_reparsing_the_file(monkeypatch):
    from stepsmith.runner.validator import engine

    source = ('import json\n\n\ndef f(x):\n    """Summary.\n\nDetails at column 0.\n    """\n'
              "    return x._y\n\n\ndef g(x):\n    return x\n")
    parsed: list[str] = []
    real = engine._parse

    def spy(text, *args):
        parsed.append(text)
        return real(text, *args)

    monkeypatch.setattr(engine, "_parse", spy)
    engine.clear_cache()
    got = validate(source)
    engine.clear_cache()
    assert [(p.code, p.line, p.step) for p in got] == [("SS201", 9, "f")]
    assert source not in parsed  # no whole-file fallback
    assert got == validate_whole_file(source)


EDIT_CHARS = st.sampled_from(list("\"'()[]{}:#\\@ \t\n\r_.=x1") + ['"""', "'''", "\ndef ", "\n@d\n",
                                                                   "\nelse:\n", "é", "\x0c"])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    funcs=st.lists(st.sampled_from(FUNCTIONS), min_size=1, max_size=4),
    edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 6), EDIT_CHARS), max_size=6),
)
def test_cache_never_changes_the_answer_on_broken_edits(funcs, edits):
    """Typing produces every kind of half-written code: the statement cache must give exactly
    the whole-file answer on all of it, and nothing may raise."""
    source = "import json\n\n\n" + "\n\n".join(funcs)
    for where, delete, text in edits:
        at = int(where * len(source))
        source = source[:at] + text + source[at + delete:]
    got = validate(source)
    assert got == validate_whole_file(source)
    assert all(p.code.startswith("SS") and p.message for p in got)


@settings(max_examples=80, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_raise(data):
    got = validate(data)
    assert got == validate_whole_file(data)
    assert all(p.span.line >= 1 and p.span.column >= 0 for p in got)
