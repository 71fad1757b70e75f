"""CodeRef and InputRef: the one parser of `code:` and of input values."""

from __future__ import annotations

import pytest
from stepsmith.runner.model import (
    CodeRef,
    Literal,
    MalformedRef,
    SourceRef,
    StepOutputRef,
    parse_input_ref,
    sources_read,
)

# text -> (path, function) or None when it has no `path:function` shape at all
PARSE = [
    ("steps/match.py:match", ("steps/match.py", "match")),
    ("a.py:b:c", ("a.py:b", "c")),  # the last colon splits; the schema refuses the text
    (":f", None),
    ("x.py:", None),
    ("x.py", None),
    ("", None),
    (":", None),
    ("x.py:f ", None),  # trailing space: not an identifier
    ("x.py:1f", None),
    (" steps/match.py:match", (" steps/match.py", "match")),
    ("steps/ma tch.py:match", ("steps/ma tch.py", "match")),
    ("steps\\match.py:match", ("steps\\match.py", "match")),
    ("/etc/x.py:f", ("/etc/x.py", "f")),
    ("C:\\x.py:f", ("C:\\x.py", "f")),
    ("../x.py:f", ("../x.py", "f")),
    ("steps/é.py:match", ("steps/é.py", "match")),
    ("steps/match.py:é", ("steps/match.py", "é")),  # an identifier; the schema wants ASCII
]


@pytest.mark.parametrize(("text", "want"), PARSE, ids=[t or "<empty>" for t, _ in PARSE])
def test_code_ref_parse(text, want):
    ref = CodeRef.parse(text)
    if want is None:
        assert ref is None
    else:
        assert (ref.path, ref.function) == want
        assert ref.text == text == str(ref)
        assert text[ref.function_start:] == ref.function


@pytest.mark.parametrize("value", [None, 3, ["a.py:f"], {"a": 1}, b"x.py:f"])
def test_code_ref_parse_refuses_non_text(value):
    assert CodeRef.parse(value) is None


WELL_FORMED = {"steps/match.py:match": True, "a.py:b:c": False, " steps/match.py:match": False,
               "steps/match.py:é": False, "steps/ma tch.py:match": True, "steps/x.txt:f": False}


@pytest.mark.parametrize(("text", "ok"), WELL_FORMED.items())
def test_well_formed_is_the_schema_pattern(text, ok):
    assert CodeRef.parse(text).well_formed is ok


PATH_ERRORS = [
    ("steps/match.py", None),
    ("steps/./match.py", None),
    ("steps/../match.py", None),  # folds to match.py: still inside
    ("/etc/x.py", "code path '/etc/x.py' is absolute; write it relative to the workflow folder"),
    ("~/x.py", "code path '~/x.py' is absolute; write it relative to the workflow folder"),
    ("\\x.py", "code path '\\\\x.py' is absolute; write it relative to the workflow folder"),
    ("C:\\x.py", "code path 'C:\\\\x.py' is absolute; write it relative to the workflow folder"),
    ("../x.py", "code path '../x.py' leaves the workflow folder"),
    ("..", "code path '..' leaves the workflow folder"),
    ("steps/../../x.py", "code path 'steps/../../x.py' leaves the workflow folder"),
    ("steps\\x.py", "code path 'steps\\\\x.py' leaves the workflow folder"),
]


@pytest.mark.parametrize(("path", "message"), PATH_ERRORS, ids=[p for p, _ in PATH_ERRORS])
def test_code_path_errors(path, message):
    assert CodeRef(path, "f").path_error() == message


def test_names_file_compares_normalised_paths():
    ref = CodeRef("steps/./match.py", "match")
    assert ref.names_file("steps/match.py")
    assert not ref.names_file("steps/bills.py")
    assert ref.normalised == "steps/match.py"


INPUTS = [
    ("sources.invoices", SourceRef("invoices")),
    ("sources.a_1", SourceRef("a_1")),
    ("sources.", MalformedRef("sources.", "source")),
    ("sources.Bad", MalformedRef("sources.Bad", "source")),
    ("sources.a.b", MalformedRef("sources.a.b", "source")),
    ("sources.é", MalformedRef("sources.é", "source")),
    ("steps.match.output", StepOutputRef("match")),
    ("steps.Match.output", StepOutputRef("Match")),  # checked against declared ids, not here
    ("steps..output", StepOutputRef("")),
    ("steps.match", MalformedRef("steps.match", "step")),
    ("steps.match.outputs", MalformedRef("steps.match.outputs", "step")),
    ("steps.a.b.output", MalformedRef("steps.a.b.output", "step")),
    ("Sources.invoices", Literal("Sources.invoices")),
    (" sources.invoices", Literal(" sources.invoices")),
    ("sourcesinvoices", Literal("sourcesinvoices")),
    ("0.50", Literal("0.50")),
    (3, Literal(3)),
    (None, Literal(None)),
    ({"a": [1]}, Literal({"a": [1]})),
]


@pytest.mark.parametrize(("value", "want"), INPUTS, ids=[repr(v) for v, _ in INPUTS])
def test_parse_input_ref(value, want):
    ref = parse_input_ref(value)
    assert ref == want
    if isinstance(ref, (SourceRef, StepOutputRef)):
        assert ref.text == value
    if isinstance(ref, SourceRef):
        assert value[ref.name_start:] == ref.name
    if isinstance(ref, StepOutputRef):
        assert value[ref.step_start:ref.step_start + len(ref.step)] == ref.step


def test_malformed_messages():
    assert MalformedRef("sources.", "source").message == \
        "malformed source reference 'sources.': expected sources.<name>"
    assert MalformedRef("steps.x", "step").message == \
        "malformed step reference 'steps.x': expected steps.<id>.output"


def test_sources_read_first_use_first_once_each():
    refs = [parse_input_ref(v) for v in ("sources.b", "steps.x.output", "sources.a", "sources.b",
                                          "sources.", "literal")]
    assert sources_read(refs) == ("b", "a")
