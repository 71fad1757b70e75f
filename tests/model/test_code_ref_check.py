"""Hostile `code:` values through the whole-workflow check: the exact problems (code, message,
columns) each form gets. Pinned on the behaviour before `CodeRef` existed, so parsing the
reference once (runner/model/refs.py) changed no message and no span."""

from __future__ import annotations

import json

import pytest
from manifest_kit import BASE, BILLS_PY, MATCH_PY
from stepsmith.runner.manifest import check_workflow

CASES = [
    ('a.py:b:c', [('SM005', "code 'a.py:b:c' must look like 'steps/file.py:function' (step 'match')", 10, 20)]),
    (':f', [('SM005', "code ':f' must look like 'steps/file.py:function' (step 'match')", 10, 14)]),
    ('x.py:', [('SM005', "code 'x.py:' must look like 'steps/file.py:function' (step 'match')", 10, 17)]),
    ('x.py', [('SM005', "code 'x.py' must look like 'steps/file.py:function' (step 'match')", 10, 16)]),
    (' steps/match.py:match', [('SM005', "code ' steps/match.py:match' must look like 'steps/file.py:function' (step 'match')", 10, 33), ('SM201', "code file ' steps/match.py' does not exist (looked in  steps/match.py)", 11, 26)]),
    ('steps/match.py:match ', [('SM005', "code 'steps/match.py:match ' must look like 'steps/file.py:function' (step 'match')", 10, 33)]),
    ('steps/ma tch.py:match', [('SM201', "code file 'steps/ma tch.py' does not exist (looked in steps/ma tch.py); did you mean 'steps/match.py'?", 11, 26)]),
    ('steps\\match.py:match', [('SM202', "code path 'steps\\\\match.py' leaves the workflow folder", 10, 33)]),
    ('/etc/x.py:f', [('SM202', "code path '/etc/x.py' is absolute; write it relative to the workflow folder", 11, 20)]),
    ('C:\\x.py:f', [('SM005', "code 'C:\\\\x.py:f' must look like 'steps/file.py:function' (step 'match')", 10, 22), ('SM202', "code path 'C:\\\\x.py' is absolute; write it relative to the workflow folder", 10, 22)]),
    ('../x.py:f', [('SM202', "code path '../x.py' leaves the workflow folder", 11, 18)]),
    ('steps/../../x.py:f', [('SM202', "code path 'steps/../../x.py' leaves the workflow folder", 11, 27)]),
    ('steps/é.py:match', [('SM201', "code file 'steps/é.py' does not exist (looked in steps/é.py); did you mean 'steps/match.py'?", 11, 21)]),
    ('steps/match.py:é', [('SM005', "code 'steps/match.py:é' must look like 'steps/file.py:function' (step 'match')", 10, 28), ('SM203', "steps/match.py has no top-level function 'é'", 26, 27)]),
    ('steps/match.py:nope', [('SM203', "steps/match.py has no top-level function 'nope'", 26, 30)]),
    ('~/x.py:f', [('SM202', "code path '~/x.py' is absolute; write it relative to the workflow folder", 11, 17)]),
    ('steps/match.txt:f', [('SM005', "code 'steps/match.txt:f' must look like 'steps/file.py:function' (step 'match')", 10, 29)]),
    ('steps:match.py:match', [('SM005', "code 'steps:match.py:match' must look like 'steps/file.py:function' (step 'match')", 10, 32), ('SM201', "code file 'steps:match.py' does not exist (looked in steps:match.py)", 11, 25)]),
    ('steps/missing.py:f', [('SM201', "code file 'steps/missing.py' does not exist (looked in steps/missing.py); did you mean 'steps/bills.py'?", 11, 27)]),
    ('steps/./match.py:match', []),
    ('steps/match.py:match', []),
]


@pytest.mark.parametrize(("code", "expected"), CASES, ids=[c for c, _ in CASES])
def test_hostile_code_reference_problems(tmp_path, monkeypatch, code, expected):
    (tmp_path / "steps").mkdir()
    (tmp_path / "steps" / "match.py").write_text(MATCH_PY, encoding="utf-8")
    (tmp_path / "steps" / "bills.py").write_text(BILLS_PY, encoding="utf-8")
    text = BASE.replace("code: steps/match.py:match",
                        "code: " + json.dumps(code, ensure_ascii=False))
    manifest = tmp_path / "workflow.yaml"
    manifest.write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # "looked in <path>" is shown relative to the cwd
    got = [(p.code, p.message, p.span.column, p.span.end_column)
           for p in check_workflow(manifest).problems[manifest]]
    assert got == expected
    assert all(p.span.line == 16 for p in check_workflow(manifest).problems[manifest])
