"""The in-sandbox code check (runner/harness/codecheck.py), on both interpreters the suite
has (3.11 running, 3.13 built), against the parent's validator as the reference:

- never stricter: every step the validator accepts (the examples' steps, every mutant the
  fixture-strength judge makes of them, and a list of legal constructs near the refused
  ones) passes the check;
- every hostile snippet of tests/validator is refused by the check or stopped at run time by
  the restricted builtins, run for real in the sandbox with the parent's validation skipped;
- the ways around a check of bytecode (EXTENDED_ARG, class patterns, folded constants,
  nested code) are refused.
"""

from __future__ import annotations

import dis
import marshal
import subprocess
import sys
from pathlib import Path

import pytest
from stepsmith.runner import sandbox
from stepsmith.runner.harness import build, bundle
from stepsmith.runner.mutants.generate import file_mutants
from stepsmith.runner.pythons.probe import probe
from stepsmith.runner.sandbox import Limits
from stepsmith.runner.validator import StepUse, validate

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "validator"))
from test_hostile_snippets import HOSTILE, HOSTILE_FILES, in_step  # noqa: E402

CODECHECK = (REPO / "runner" / "harness" / "codecheck.py").read_text()

#: Runs codecheck.py BY an interpreter, on its own compile() of each source, as the harness
#: does (its globals: CHECK, _SOURCE); answers each source's problems as (code, line).
DRIVER = r"""
import marshal, sys
check_src, table, sources, urllib = marshal.loads(sys.stdin.buffer.read())
ns = {"CHECK": marshal.loads(table)}
exec(compile(check_src, "codecheck.py", "exec"), ns)
out = []
for src in sources:
    ns["_SOURCE"] = src
    try:
        code = compile(src, "s.py", "exec", dont_inherit=True)
    except SyntaxError:
        out.append(None)
        continue
    out.append([(p["code"], p["line"]) for p in ns["_check_code"](code, urllib)])
sys.stdout.buffer.write(marshal.dumps(out, 4))
"""


def code_check(exe: str, sources: list[str], urllib: bool = False) -> list:
    interp = probe(exe)
    table = bundle(interp)["check"]
    done = subprocess.run([exe, "-I", "-S", "-c", DRIVER],
                          input=marshal.dumps((CODECHECK, table, sources, urllib), 4),
                          capture_output=True, check=True, timeout=300)
    return marshal.loads(done.stdout)


@pytest.fixture(scope="module", params=["running", "3.13"])
def exe(request, py313):
    return sys.executable if request.param == "running" else py313


def example_steps() -> list[tuple[str, str]]:
    return [(str(p.relative_to(REPO)), p.read_text())
            for p in sorted((REPO / "examples").glob("*/steps/*.py"))]


#: Legal code near what is refused: each must pass (the validator accepts every one).
LEGAL = [
    'def _helper(x):\n    return x\n\n\ndef f(x):\n    return _helper(x)\n',
    'def f(x):\n    return str.format("{0} {1.real}", x, 2)\n',
    'def f(x):\n    return "{0.real:>{1}}".format(x, 4)\n',
    'def f(d):\n    return "{a[0]}".format_map(d)\n',
    'def f(x):\n    match x:\n        case int(real=r):\n            return r\n    return None\n',
    'def f(x):\n    _ = [i for i in range(3)]\n    return {k: v for k, v in x.items()}\n',
    '"""A docstring."""\nimport json\nfrom decimal import Decimal, ROUND_HALF_UP\n\n\n'
    'def f(x, n=2):\n    """Doc."""\n    q = Decimal(1).scaleb(-n)\n'
    '    return json.dumps(str(Decimal(x).quantize(q, rounding=ROUND_HALF_UP)))\n',
    'def f(x):\n    def inner(y=x):\n        return lambda: y\n    return inner()()\n',
    'def f(x):\n    try:\n        return 1 / x\n    except ZeroDivisionError as err:\n'
    '        return str(err.args)\n',
    'def f(x):\n    return f"{x!r:>10} {x.real}"\n',
    'import datetime\n\n\ndef f():\n    return datetime.datetime.now().isoformat()\n',
    'import re\n\n\ndef f(s):\n    m = re.match("a", s)\n    return m.re.pattern if m else None\n',
    "def f(x):\n    return (" + " + ".join(f"x.real * {i}" for i in range(300)) + ")\n",
    "import decimal\n\n\ndef f(x: int, *args: str, k: float = 1.0, **kw: dict) -> dict:\n"
    "    total: int = 0\n    with decimal.localcontext() as ctx:\n        ctx.prec += 2\n"
    "        total = decimal.Decimal(x) / 3\n    if (n := len(args)) > 1:\n"
    "        first, *rest = args\n    assert n >= 0, 'never'\n    del kw['a']\n"
    "    while False:\n        pass\n    else:\n        n = {a for a in args}\n"
    "    return {'t': str(total), 'f': (lambda *a, **k: a)(1), 'n': len(n)}\n",
    "def f(x):\n    try:\n        raise ValueError('x') from None\n"
    "    except* ValueError as group:\n        return len(group.exceptions)\n",
    "def f(rows):\n    return sorted(rows, key=lambda r: (r['a'], -r['b']), reverse=True)[:3]\n",
]


EGRESS = [StepUse("s", "f", "public_egress")]  # rates.py imports urllib.request


def test_the_examples_steps_and_the_legal_list_pass(exe):
    sources = [src for _, src in example_steps()] + LEGAL
    for src in sources:
        assert not [p for p in validate(src, uses=EGRESS) if p.severity.value == "error"], src
    got = code_check(exe, sources, urllib=True)
    labels = [name for name, _ in example_steps()] + [f"LEGAL[{i}]" for i in range(len(LEGAL))]
    assert [(label, g) for label, g in zip(labels, got, strict=True) if g] == []


def test_every_mutant_the_judge_makes_of_the_examples_passes(exe):
    """Every operator's output, on real steps: the check accepts what the validator does."""
    python = "3.11" if exe == sys.executable else "3.13"
    mutants = []
    for _, src in example_steps():
        code = compile(src, "s.py", "exec")
        functions = [c.co_name for c in code.co_consts if hasattr(c, "co_code")]
        mutants += [m.text for m in file_mutants(src, functions, python=python,
                                                 uses=EGRESS).mutants]
    assert len(mutants) > 150
    got = code_check(exe, mutants, urllib=True)
    assert [m for m, g in zip(mutants, got, strict=True) if g] == []


def test_urllib_only_when_the_request_allows_it(exe):
    src = "import urllib.request\nimport urllib.parse\n\n\ndef f():\n    return 1\n"
    assert not validate(src, uses=EGRESS)
    assert code_check(exe, [src], urllib=True) == [[]]
    assert [c for c, _ in code_check(exe, [src])[0]] == ["SS105", "SS105"]
    # `from urllib import parse` is refused by the validator (SS101): so by the check
    assert [c for c, _ in code_check(exe, ["from urllib import parse\n"], urllib=True)[0]] \
        == ["SS101"]


#: Hostile snippets the check leaves to the run time (restricted.py, facades.py), and why
#: each is harmless there; the test runs them in the sandbox and checks that it is so.
AT_RUN_TIME = {
    "SS203": "getattr/hasattr refuse private and blocked names; setattr/delattr are gone",
    "SS204": "the same restricted getattr",
    "SS302": "`type` takes one argument; three-argument type() is gone",
    "SS202": "`dict(__class__=x)`: a dict key, no attribute is read",
    "SS501": "sampling without a seed is refused by the statistics facade",
    "SS502": "the clock is pinned (libfaketime), and the facade has no real now()",
    "SS404": "a decorator is a call; not a way out",
}


@pytest.mark.parametrize("code,body", HOSTILE + HOSTILE_FILES,
                         ids=[f"{h[0]}-{i}" for i, h in enumerate(HOSTILE + HOSTILE_FILES)])
def test_hostile_snippets_are_refused_inside_the_sandbox_or_stopped(code, body):
    src = in_step(body) if (code, body) in HOSTILE else body
    inputs = {"x": 1, "g": None, "e": None, "nd": None, "names": ["C"], "t": None}
    res = sandbox._execute(src, "step", inputs, filename="s.py", validate=True,
                           limits=Limits())
    if res.status == "refused":
        return
    assert code in AT_RUN_TIME, (code, body, res.status, res.output)
    # nothing came back but data: an error, or a plain JSON value with no object's insides
    assert res.status == "error" or repr(res.output) in ("{'__class__': 1}", "None"), \
        (code, body, res.status, res.output)


#: Ways around a check of bytecode, each refused by the check itself.
AROUND = [
    # an attribute name past index 255 of co_names: its instruction carries EXTENDED_ARG
    ("SS201", "def f(x):\n    return (" + ", ".join(f"x.a{i}" for i in range(300))
     + ", x.__class__)\n"),
    ("SS201", "def f(x):\n    match x:\n        case object(__class__=c):\n            return c\n"),
    ("SS205", 'def f(x):\n    return ("{0._" + "_class__}").format(x)\n'),  # folded
    ("SS205", 'def f(x):\n    return str.format("{0.__class__}", x)\n'),
    ("SS206", 'def f(x, s):\n    return str.format(s, x)\n'),
    ("SS206", 'def f(x, s):\n    m = s.format\n    return m(x)\n'),
    ("SS201", "def f(x):\n    return [[lambda: y.__class__ for y in x] for _ in x]\n"),
    ("SS201", "def f(x):\n    return f'{x:{x.__class__}}'\n"),
    ("SS201", "from json import _default_decoder\n"),
    ("SS305", "def f(x):\n    return x.codecs\n"),
    ("SS303", "def f(g):\n    return g.gi_frame\n"),
    ("SS304", "def f(x):\n    return x.mro\n"),
    ("SS301", "def f(x):\n    return eval(x)\n"),
    ("SS202", "def f():\n    return __builtins__\n"),
    ("SS403", "def f():\n    global g\n    g = 1\n"),
    ("SS401", "class C:\n    pass\n"),
    ("SS402", "def f():\n    async def g():\n        pass\n    return g\n"),
    ("SS402", "async def f():\n    pass\n"),
    ("SS101", "def f():\n    import os\n    return os\n"),
    ("SS103", "from .json import loads\n"),
]


def test_the_ways_around_a_bytecode_check_are_refused(exe):
    got = code_check(exe, [src for _, src in AROUND])
    for (code, src), problems in zip(AROUND, got, strict=True):
        assert problems is not None and code in {c for c, _ in problems}, (code, src, problems)


def test_the_table_reads_this_interpreters_bytecode(exe):
    """The probe found how every naming opcode the compiler emits for step code encodes its
    name; what it could not place is refused wherever it appears."""
    table = marshal.loads(bundle(probe(exe))["check"])
    names = dict(table["names"])
    out = subprocess.run([exe, "-I", "-S", "-c", "import dis,sys;print(repr(dis.opmap))"],
                         capture_output=True, text=True, check=True).stdout
    opmap = eval(out)  # noqa: S307 - the interpreter's own repr of a dict of ints
    for opname, kind in [("LOAD_ATTR", "attr"), ("STORE_ATTR", "attr"), ("DELETE_ATTR", "attr"),
                         ("IMPORT_FROM", "attr"), ("LOAD_GLOBAL", "global"),
                         ("LOAD_NAME", "global"), ("STORE_NAME", "global"),
                         ("IMPORT_NAME", "import"), ("STORE_GLOBAL", "store_global")]:
        assert names[opmap[opname]][0] == kind, opname
    assert names[opmap["LOAD_GLOBAL"]][1] == 1  # (index << 1) | push-null, since 3.11


def test_this_interpreters_table_matches_dis():
    """On the running interpreter: the table's decoding agrees with `dis` for every naming
    instruction of the examples' steps and mutants (the reference decoder)."""
    table = build.code_table({})
    seen = 0
    for _, src in example_steps():
        todo = [compile(src, "s.py", "exec")]
        while todo:
            co = todo.pop()
            todo.extend(c for c in co.co_consts if hasattr(c, "co_code"))
            for ins in dis.get_instructions(co):
                if ins.opcode in dis.hasname:
                    kind, shift = table["names"][ins.opcode]
                    assert kind != "unknown", ins.opname
                    assert co.co_names[ins.arg >> shift] == ins.argval, ins
                    seen += 1
    assert seen > 100


def test_a_file_of_many_refusals_is_refused_in_time():
    """Each problem's position is looked up once per code object, and the list is capped: a
    file of 20,000 refusals (the parent's validation skipped) was a CPU-limit kill, its
    positions found by walking the code's position table once per problem."""
    src = "def f(x):\n" + "".join(f"    y{i} = x.__class__\n" for i in range(20000)) \
        + "    return 1\n"
    res = sandbox._execute(src, "f", {"x": 1}, filename="s.py", validate=True,
                           limits=Limits())
    assert res.status == "refused", (res.status, res.message)
    assert 0 < len(res.problems) <= 100
    assert [(p.code, p.line) for p in res.problems[:2]] == [("SS201", 2), ("SS201", 3)]


@pytest.mark.parametrize(("src", "code", "line"), [
    ("def f():\n    return (1 +\n", "SS001", 2),  # a syntax error
    ("def f():\n    return 1\x00\n", "SS001", 1),  # a NUL byte
    ("def f():\n    return 1\n" + "#" * (1024 * 1024), "SS002", 1),  # past the size cap
], ids=["syntax", "nul", "size"])
def test_bad_bytes_are_refused_inside_with_a_position(src, code, line):
    """The parent's validation skipped: what compile() cannot take is a refusal with the
    rule and where, never an error of the harness nor a run."""
    res = sandbox._execute(src, "f", {}, filename="s.py", validate=True, limits=Limits())
    assert res.status == "refused", (res.status, res.message)
    assert [(p.code, p.line) for p in res.problems] == [(code, line)], res.problems
