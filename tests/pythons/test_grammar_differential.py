"""Differential: `check`'s syntax verdict on a step file (SS001 or not) against the pinned
interpreter's own `compile()`, for generated step files whose syntax differs between Python
3.11 (the running interpreter, checked in-process) and 3.13 (the built one, checked by its
helper process): PEP 701 f-strings, PEP 695/696 type parameters and aliases, `except*`,
`match`, and plain errors. Zero disagreements."""

from __future__ import annotations

import collections

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stepsmith.runner.pythons import checker, probe

#: statement fragments (inside a function of parameters x, k, w, a); a fragment may be valid on
#: every version, on some, or on none
FRAGMENTS = [
    'y = f"{x}"',
    "y = f'{x!r:>{w}}'",
    'y = f"{x["k"]}"',  # PEP 701: the quotes that delimit it, 3.12+
    "y = f'{x['k']}'",
    'y = f"{f"{x}"}"',
    "y = f\"{'\\n'.join(a)}\"",  # a backslash in a replacement field, 3.12+
    'y = f"""{\n    x  # a comment in a replacement field, 3.12+\n}"""',
    'y = f"{x:{"<" if w else ">"}10}"',
    'y = f"{}"',  # empty expression: never
    'y = f"{x!z}"',  # bad conversion: never
    "def g[T](b: T) -> T:\n        return b",  # PEP 695, 3.12+
    "def g[T = int](b: T) -> T:\n        return b",  # PEP 696 defaults, 3.13+
    "type Pair = tuple[int, int]",  # 3.12+
    "type Box[T] = list[T]",
    "try:\n        y = 1\n    except* ValueError:\n        y = 2",  # 3.11+
    "match x:\n        case {\"k\": 1}:\n            y = 1\n        case _:\n            y = 2",
    "with (open(x) as p, open(k) as q):\n        y = p",
    "y = [b for b in a if (c := b)]",
    "y = a[*a]",  # 3.11+
    "y = (yield)",
    "y = x if x else",  # never
    "y = lambda: (yield from a)",
    "y = 1 +",  # never
    "y = not",  # never
    'y = "abc" "def"',
    "y = x @ w",
    "y = {**x, 'k': 1}",
    "global_ = [*a, *a]",
]


def step_file(fragments: list[str], spaces: int) -> str:
    pad = " " * spaces
    body = "".join(f"    {f}\n" for f in fragments) or "    pass\n"
    return f"import math\n{pad}\n\ndef step(x, k, w, a):\n{body}    return 0\n"


@pytest.fixture(scope="module")
def interpreters(py313):
    return {"3.11": probe.running(), "3.13": probe.probe(py313)}


TALLY: collections.Counter = collections.Counter()


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=4), st.integers(0, 2))
def test_check_agrees_with_each_interpreters_own_compile(interpreters, fragments, spaces):
    source = step_file(fragments, spaces)
    for pin, interp in interpreters.items():
        found = checker.validate(source, python=pin, interpreter=interp)
        ours = next((p for p in found if p.code == "SS001"), None)
        theirs = checker.compiles(interp, source)
        TALLY[(pin, "refused" if theirs else "accepted")] += 1
        assert (ours is None) == (theirs is None), (pin, source, ours, theirs)
        if ours is not None:  # at the line the interpreter names
            assert ours.span.line == theirs[1], (pin, source, ours, theirs)


def test_the_generated_files_do_differ_between_versions(interpreters):
    """The fragments the differential draws from are read differently by the two versions
    (so agreeing on them means something): each verdict occurs, and some file differs."""
    both = [step_file([f], 0) for f in FRAGMENTS]
    verdicts = {pin: [checker.compiles(i, s) is None for s in both]
                for pin, i in interpreters.items()}
    assert any(verdicts["3.11"]) and not all(verdicts["3.11"])
    assert any(verdicts["3.13"]) and not all(verdicts["3.13"])
    differ = [f for f, a, b in zip(FRAGMENTS, verdicts["3.11"], verdicts["3.13"], strict=True)
              if a != b]
    assert len(differ) >= 6, differ


def teardown_module(module):
    if TALLY:
        print(f"\ngrammar differential: {dict(TALLY)}; disagreements: 0")
