"""Safety is a property of the fix engine, for every fixable step rule, checked against pyflakes
(the reference for "undefined name") on generated step files.

Each generated file is a program the author meant (`base`) with mistakes put in: a refused
import (SS101 of a plain module, `typing` or a network module, SS102 submodule, SS103 relative,
SS104 star, SS105 `urllib.request` in a `none` step) whose name is unused, used only in
annotations (typing) or used in the code; a decorator (SS404); unseeded sampling (SS501). The
real `check --fix` engine (runner/app/fix.py) applies the fixes. After the safe fixes:

- the file compiles and pyflakes finds no undefined name it did not find before;
- a mistake whose name is used elsewhere is still there (no fix leaves a name undefined);
- when every mistake had a safe fix, the file IS the program the author meant (same AST), and
  its fixture's outcome in the real sandbox is the meant program's (a sample); otherwise the
  outcome is what it was (refused).
The guesses and meaning-changing fixes (`--unsafe-fixes`) still never break a file.
"""

from __future__ import annotations

import ast
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from fix_cases_kit import ONE_STEP as MANIFEST
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyflakes import checker as flakes
from pyflakes import messages
from stepsmith.runner.app.fix import plan, write
from stepsmith.runner.manifest import check_workflow

INPUTS = {"invoices": [{"id": "A", "amount": "2.50"}, {"id": "B", "amount": "1.25"}]}
BODIES = {  # what the author meant: (imports it needs, body lines after `rows = ...`)
    "json": (["import json"], ["return json.dumps(sorted(r['id'] for r in rows))"]),
    "decimal": (["from decimal import Decimal"],
                ["total = sum(Decimal(r['amount']) for r in rows)", "return str(total)"]),
    "math": (["import math"], ["return [math.floor(float(r['amount'])) for r in rows]"]),
}


@dataclass(frozen=True)
class Mistake:
    line: str  # the import statement (or decorator / sampling line)
    binds: str  # the name it binds ("" for none)
    where: str  # "top" | "inner"
    use: str  # "none" | "annotation" | "code"
    kind: str = "import"  # "import" | "decorator" | "seed"

    @property
    def safe(self) -> bool:
        # a star import could bind any name the file reads, builtins included (`list` here):
        # removed only when the file reads nothing but names it binds itself (test_check_fix)
        return self.kind == "import" and self.use in ("none", "annotation") \
            and "*" not in self.line


IMPORTS = [  # (statement, name bound, can be used only in annotations)
    ("import os", "os", False), ("import sys as system", "system", False),
    ("from collections import OrderedDict", "OrderedDict", False),
    ("from itertools import chain as chained", "chained", False),
    ("from typing import Dict", "Dict", True), ("from typing import List as L", "L", True),
    ("import typing", "typing", True), ("import typing as t", "t", True),
    ("from . import helpers", "helpers", False), ("from .util import tidy", "tidy", False),
    ("from math import *", "floor", False), ("import urllib.request", "urllib", False),
]


def _annotation(m: Mistake) -> str:
    if m.binds in ("typing", "t"):
        return f"{m.binds}.List[dict]"
    return f"{m.binds}[str]"


@st.composite
def mistakes(draw):
    chosen = draw(st.lists(st.sampled_from(IMPORTS), min_size=1, max_size=3,
                           unique_by=lambda t: t[1]))
    out = []
    for stmt, name, typing_name in chosen:
        uses = ["none", "code"] + (["annotation"] if typing_name else [])
        use = draw(st.sampled_from(uses))
        # a name imported inside the function annotates its local variable (one such site);
        # at the top, the parameter and the return
        inner_ok = "*" not in stmt and not (use == "annotation" and any(
            m.use == "annotation" and m.where == "inner" for m in out))
        where = draw(st.sampled_from(["top", "inner"])) if inner_ok else "top"
        out.append(Mistake(stmt, name, where, use))
    if draw(st.booleans()):
        out.append(Mistake("@staticmethod", "", "top", "none", "decorator"))
    if draw(st.booleans()):
        out.append(Mistake("noise = statistics.NormalDist(0, 1).samples(2)", "", "inner",
                           "none", "seed"))
    return out


@dataclass
class Case:
    body: str
    mistakes: list[Mistake] = field(default_factory=list)

    def render(self, with_mistakes: bool = True) -> str:
        need, lines = BODIES[self.body]
        ms = self.mistakes if with_mistakes else []
        top = [*need, *(m.line for m in ms if m.kind == "import" and m.where == "top")]
        if any(m.kind == "seed" for m in ms):
            top.append("import statistics")
        ann = [m for m in ms if m.use == "annotation" and m.where == "top"]
        inner = [m for m in ms if m.use == "annotation" and m.where == "inner"]
        param = f": {_annotation(ann[0])}" if ann else ""
        ret = f" -> {_annotation(ann[1])}" if len(ann) > 1 else ""
        local = f": {_annotation(inner[0])}" if inner else ""
        if len(ann) > 2:  # a third at the top: on the local variable as well
            local = f": {_annotation(ann[2])}" if not inner else local
        src = "\n".join(top) + "\n\n\n"
        src += "".join(m.line + "\n" for m in ms if m.kind == "decorator")
        src += f"def read(invoices{param}){ret}:\n"
        src += "".join(f"    {m.line}\n" for m in ms if m.kind == "import" and m.where == "inner")
        src += "".join(f"    {m.line}\n" for m in ms if m.kind == "seed")
        src += "".join(f"    probe_{i} = {m.binds}\n" for i, m in enumerate(ms) if m.use == "code")
        src += f"    rows{local} = list(invoices)\n"
        return src + "".join(f"    {line}\n" for line in lines)


cases = st.builds(Case, st.sampled_from(sorted(BODIES)), mistakes())


def undefined(text: str) -> set[str]:
    found = flakes.Checker(ast.parse(text), "step.py").messages
    return {m.message_args[0] for m in found
            if isinstance(m, (messages.UndefinedName, messages.UndefinedLocal))}


def fixed(text: str, *, unsafe: bool = False) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        wf = Path(tmp)
        (wf / "steps").mkdir()
        (wf / "workflow.yaml").write_text(MANIFEST)
        (wf / "steps" / "read.py").write_text(text)
        outcome = write(plan([str(wf)], unsafe=unsafe))
        assert not outcome.conflicts and not outcome.refused
        return (wf / "steps" / "read.py").read_text()


def codes_of(text: str) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        wf = Path(tmp)
        (wf / "steps").mkdir()
        (wf / "workflow.yaml").write_text(MANIFEST)
        (wf / "steps" / "read.py").write_text(text)
        found = check_workflow(wf / "workflow.yaml").problems
        return sorted(p.code for probs in found.values() for p in probs)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases)
def test_safe_fixes_keep_the_meaning(case):
    before = case.render()
    after = fixed(before)
    compile(after, "step.py", "exec", dont_inherit=True)
    assert undefined(after) <= undefined(before), after
    lines = after.splitlines()
    for m in case.mistakes:
        present = any(line.strip() == m.line for line in lines)
        if m.kind == "import" and m.use == "code":
            assert present, (m, after)  # still used: never removed
        elif m.safe:
            assert not present, (m, after)  # nothing uses it (or only annotations): removed
        else:
            assert present, (m, after)  # seed / decorator: the author's choice; a star
    if all(m.safe for m in case.mistakes):
        assert ast.dump(ast.parse(after)) == ast.dump(ast.parse(case.render(False))), after
        assert codes_of(after) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases)
def test_unsafe_fixes_never_leave_a_name_undefined(case):
    before = case.render()
    after = fixed(before, unsafe=True)
    compile(after, "step.py", "exec", dont_inherit=True)
    assert undefined(after) <= undefined(before), after
    if any(m.kind == "seed" for m in case.mistakes):
        assert "samples(2, seed=0)" in after
    if any(m.kind == "decorator" for m in case.mistakes):
        assert "@staticmethod" not in after


def test_the_generator_covers_every_fixable_rule_used_and_unused():
    """What the properties above draw: every fixable kind, used and unused (drawn here from
    the same strategy, so the answer does not depend on which tests ran in this process)."""
    drawn: set[str] = set()

    @settings(max_examples=150, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(cases)
    def draw(case):
        drawn.update(f"{m.kind}:{m.use}" for m in case.mistakes)

    draw()
    assert {"import:none", "import:code", "import:annotation", "decorator:none",
            "seed:none"} <= drawn, drawn
    codes = set()
    for stmt, _name, _t in IMPORTS:
        codes.update(codes_of(Case("json", [Mistake(stmt, "", "top", "none")]).render()))
    codes.update(codes_of(Case("json", [Mistake("import json.decoder", "json", "top",
                                                 "none")]).render()))
    assert codes == {"SS101", "SS102", "SS103", "SS104", "SS105"}, codes


# ------------------------------------------------------------ outcomes in the real sandbox


def outcome(text: str) -> tuple:
    from stepsmith.runner.sandbox import run_step

    r = run_step(text, "read", INPUTS, evaluation_time="2026-12-01T07:00:00+00:00")
    if r.status == "refused":
        return (r.status, sorted(p.code for p in r.problems))
    return (r.status, json.dumps(r.output, sort_keys=True))


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(cases)
def test_fixture_outcomes_are_unchanged_in_the_sandbox(sandbox, case):
    before = case.render()
    after = fixed(before)
    meant = outcome(case.render(False))
    assert meant[0] == "ok", meant
    if all(m.safe for m in case.mistakes):
        assert outcome(after) == meant
    else:  # a mistake the safe fixes leave: refused, as before
        assert outcome(after)[0] == outcome(before)[0] == "refused"
