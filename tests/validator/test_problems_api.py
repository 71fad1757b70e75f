"""`Problem`, `Span`, `Severity`, `StepUse` and `Rule` are written by hand (no dataclasses or
enum: they are imported inside every sandbox, where those imports cost most of a step's
start-up). They must behave exactly as the dataclass/Enum declarations they replaced, which
are reproduced here as the reference: constructor, repr, equality and hash (`data` excluded),
ordering, immutability, `dataclasses` functions, copy/pickle, JSON."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Literal

import pytest
from stepsmith.runner import problems as new
from stepsmith.runner.rules import Rule as NewRule
from stepsmith.runner.validator.model import StepUse as NewStepUse


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Span:
    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, line: int, column: int, width: int = 1) -> Span:
        return cls(line, column, line, column + width)


@dataclass(frozen=True)
class Problem:
    code: str
    message: str
    span: Span
    path: str | None = None
    step: str | None = None
    rationale: str = ""
    severity: Severity = Severity.ERROR
    data: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column

    def sort_key(self):
        return (self.path or "", self.span, self.code)

    def to_json(self) -> dict:
        d = asdict(self)
        d["severity"] = self.severity.value
        sp = d.pop("span")
        d.update(sp)
        return d


@dataclass(frozen=True)
class StepUse:
    step_id: str
    function: str
    network: Literal["none", "public_egress"] = "none"
    effects: tuple[tuple[str, str | None], ...] | None = None


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    summary: str
    rationale: str
    security: bool = True
    example: str = ""
    fix: str = ""


class Ref:
    Severity, Span, Problem, StepUse, Rule = Severity, Span, Problem, StepUse, Rule


class New:
    Severity, Span, Problem = new.Severity, new.Span, new.Problem
    StepUse, Rule = NewStepUse, NewRule


def _outcome(fn):
    try:
        return ("ok", repr(fn()))
    except Exception as exc:  # noqa: BLE001 - the exception type and text are the behaviour
        return (type(exc).__name__, str(exc))


def _behaviours(M):  # one scenario list, run against both implementations
    V, S, P = M.Severity, M.Span, M.Problem
    E, W = V.ERROR, V.WARNING
    s = S(1, 2, 3, 4)
    p = P("SS101", "msg", s, step="f", data={"fix": "remove-import", "sp": S(1, 1, 1, 2),
                                             "t": (1, [2]), "n": None})
    q = P(code="SS101", message="msg", span=S(1, 2, 3, 4), step="f")
    u = M.StepUse("a", "f")
    r = M.Rule("SS1", "n", "s", "r", False, example="e", fix="f")

    def assign(obj, name):
        setattr(obj, name, 1)

    def delete(obj, name):
        delattr(obj, name)

    cases = {
        "severity": lambda: (repr(E), str(E), f"{E}", f"{E:>20}", format(W), "%s" % E, E == "error",  # noqa: UP031
                             hash(E) == hash("error"), E.name, E.value, len(V), list(V),
                             V("error") is E, V["WARNING"] is W, copy.deepcopy(E) is E,
                             copy.copy(W) is W, json.dumps([E, W]), pickle.loads(pickle.dumps(E)) is E,
                             isinstance(E, str), isinstance(E, V), E in V, E.upper(), E + "x",
                             E < "f", sorted([W, E]), list(V.__members__), {E: 1}["error"]),
        "severity bad value": lambda: V("nope"),
        "severity bad name": lambda: V["nope"],
        "span": lambda: (repr(s), s == S(1, 2, 3, 4), s != S(1, 2, 3, 5), hash(s), s < S(1, 3, 0, 0),
                         s <= S(1, 2, 3, 4), s > S(0, 9, 9, 9), s >= S(1, 2, 3, 4), S.point(1, 2), S.point(1, 2, 5),
                         s == (1, 2, 3, 4), s.__lt__((1,)), S.__match_args__,
                         sorted([S(2, 0, 2, 1), S(1, 5, 1, 6), S(1, 0, 9, 9)]),
                         S(line=1, column=2, end_line=3, end_column=4)),
        "span vs tuple ordering": lambda: s < (1, 2),
        "span missing arg": lambda: S(1, 2, 3),
        "span assign": lambda: assign(s, "line"),
        "span delete": lambda: delete(s, "line"),
        "problem": lambda: (repr(p), p == q, hash(p) == hash(q), hash(p), p.line, p.column,
                            p.sort_key(), p.to_json(), q.to_json(), p.__eq__(1), P.__match_args__,
                            P("a", "b", s) == P("a", "b", s, data={"z": 1}),
                            P("a", "b", s, severity=W).to_json(),
                            sorted([P("b", "m", S(1, 0, 1, 1)), P("a", "m", S(1, 0, 1, 1), path="z")],
                                   key=P.sort_key)),
        "problem dataclasses": lambda: (
            dataclasses.is_dataclass(p), dataclasses.is_dataclass(P),
            [(f.name, f.type, f.compare, f.hash, f.init, f.default) for f in dataclasses.fields(P)],
            dataclasses.asdict(p), dataclasses.astuple(s), dataclasses.replace(p, path="x.py"),
            dataclasses.replace(p, span=S(9, 9, 9, 9)).data is p.data,
            [f.name for f in dataclasses.fields(S)]),
        "problem copies": lambda: (copy.copy(p), copy.deepcopy(p), copy.deepcopy(p).data is p.data,
                                   pickle.loads(pickle.dumps(p)) == p, copy.deepcopy(s),
                                   pickle.loads(pickle.dumps(p)).data),
        "problem missing span": lambda: P("a", "b"),
        "problem unknown keyword": lambda: P("a", "b", s, bogus=1),
        "problem assign": lambda: assign(p, "code"),
        "stepuse": lambda: (repr(u), u == M.StepUse("a", "f"), u != M.StepUse("a", "f", "public_egress"),
                            hash(u) == hash(M.StepUse(step_id="a", function="f")), hash(u),
                            u.network, copy.deepcopy(u), pickle.loads(pickle.dumps(u)) == u,
                            dataclasses.replace(u, network="public_egress"), dataclasses.asdict(u),
                            u == ("a", "f", "none"), M.StepUse.__match_args__),
        "stepuse assign": lambda: assign(u, "network"),
        "stepuse arity": lambda: M.StepUse("a"),
        "rule": lambda: (repr(r), r == M.Rule("SS1", "n", "s", "r", False, "e", "f"), hash(r),
                         dataclasses.replace(r, example="x"), dataclasses.asdict(r),
                         [f.name for f in dataclasses.fields(M.Rule)],
                         pickle.loads(pickle.dumps(r)) == r),
        "rule assign": lambda: assign(r, "code"),
    }
    out = {}
    for name, fn in cases.items():
        kind, text = _outcome(fn)
        for mod in ("tests.validator.test_problems_api", __name__, "stepsmith.runner.problems",
                    "stepsmith.runner.validator.model", "stepsmith.runner.rules"):
            text = text.replace(mod + ".", "")
        out[name] = (kind, text)
    return out


REF = _behaviours(Ref)
NEW = _behaviours(New)


@pytest.mark.parametrize("case", sorted(REF))
def test_hand_written_records_behave_like_the_dataclass_declarations(case):
    assert NEW[case] == REF[case]


def test_to_json_matches_asdict_for_nested_data():
    data = {"fix": "replace", "replacement": "x", "nested": [{"a": (1, 2)}], "span": new.Span(1, 2, 3, 4)}
    got = new.Problem("SM1", "m", new.Span(1, 0, 1, 1), data=data).to_json()
    want = Problem("SM1", "m", Span(1, 0, 1, 1), data={**data, "span": Span(1, 2, 3, 4)}).to_json()
    assert got == want
    assert got["data"] is not data and got["data"]["nested"][0] is not data["nested"][0]


def test_severity_compares_with_the_server_s_spelling():
    assert new.Problem("a", "b", new.Span(1, 0, 1, 1), severity=new.Severity.WARNING).severity \
        == new.Severity.WARNING == "warning"
