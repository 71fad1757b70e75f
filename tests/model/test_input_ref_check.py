"""Input references (`sources.X`, `steps.<id>.output`, literals) through the manifest check:
the exact problems each form gets, pinned before `InputRef` existed (runner/model/refs.py)."""

from __future__ import annotations

import json

import pytest
from manifest_kit import BASE
from stepsmith.runner.manifest import parse_manifest

CASES = [
    ('sources.', [('SM102', "malformed source reference 'sources.': expected sources.<name>", 17, 27, {})]),
    ('sources.Bad', [('SM102', "malformed source reference 'sources.Bad': expected sources.<name>", 17, 30, {})]),
    ('sources.invoices.x', [('SM102', "malformed source reference 'sources.invoices.x': expected sources.<name>", 17, 37, {})]),
    ('sources.invoice', [('SM102', "input 'tolerance' reads source 'invoice', which is not declared under `sources`; did you mean 'invoices'?", 26, 33, {'fix': 'replace', 'replacement': 'invoices'})]),
    ('sources.é', [('SM102', "malformed source reference 'sources.é': expected sources.<name>", 17, 28, {})]),
    ('steps.match', [('SM104', "malformed step reference 'steps.match': expected steps.<id>.output", 17, 30, {})]),
    ('steps..output', [('SM104', "input 'tolerance' uses the output of step '', but there is no such step", 24, 24, {})]),
    ('steps.matc.output', [('SM104', "input 'tolerance' uses the output of step 'matc', but there is no such step; did you mean 'match'?", 24, 28, {'fix': 'replace', 'replacement': 'match'})]),
    ('steps.match.output.x', [('SM104', "malformed step reference 'steps.match.output.x': expected steps.<id>.output", 17, 39, {})]),
    ('steps.Match.output', [('SM104', "input 'tolerance' uses the output of step 'Match', but there is no such step; did you mean 'match'?", 24, 29, {'fix': 'replace', 'replacement': 'match'})]),
    ('steps.match.outputs', [('SM104', "malformed step reference 'steps.match.outputs': expected steps.<id>.output", 17, 38, {})]),
    ('sourcesinvoices', []),
    ('Sources.invoices', []),
    (' sources.invoices', []),
    ('0.50', []),
    ('steps.draft.output', [('SM105', 'wiring cycle: match -> draft -> match', 17, 37, {})]),
]


@pytest.mark.parametrize(("value", "expected"), CASES, ids=[v for v, _ in CASES])
def test_input_reference_problems(value, expected):
    text = BASE.replace('tolerance: "0.50"', "tolerance: " + json.dumps(value, ensure_ascii=False))
    doc = parse_manifest(text, "w.yaml")
    probs = [p for p in doc.problems if p.span.line == 20 or p.code in ("SM102", "SM104", "SM105")]
    hint = lambda p: {k: p.data[k] for k in ("fix", "replacement") if k in p.data}  # noqa: E731
    got = [(p.code, p.message, p.span.column, p.span.end_column, hint(p)) for p in probs]
    assert got == expected
    for p in probs:  # the did-you-mean carries its edit: the problem's span, replaced
        if "replacement" in p.data:
            sp = p.span
            assert p.data["edits"] == [[sp.line, sp.column, sp.end_line, sp.end_column,
                                        p.data["replacement"]]]
