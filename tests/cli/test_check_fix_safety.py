"""A safe fix keeps the program meaning what it meant (as ruff's are): `check --fix` never
removes an import whose name is still used, and removing a `typing` import used only in
annotations removes those annotations too, so the fixed step runs (in the real sandbox)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fix_cases_kit import ONE_STEP as MANIFEST
from stepsmith.runner.cli import main

FIXTURE = {"inputs": {"invoices": [{"id": "A", "amount": "2.50"}, {"id": "B", "amount": "1"}]},
           "evaluation_time": "2026-12-01T07:00:00+00:00",
           "expected": {"output": {"A": "2.50", "B": "1"}}}


def workflow(tmp_path: Path, src: str) -> Path:
    (tmp_path / "steps").mkdir()
    (tmp_path / "fixtures" / "read").mkdir(parents=True)
    (tmp_path / "workflow.yaml").write_text(MANIFEST)
    (tmp_path / "steps" / "read.py").write_text(src)
    (tmp_path / "fixtures" / "read" / "two.json").write_text(json.dumps(FIXTURE))
    return tmp_path


def problems(capsys, wf: Path) -> list[dict]:
    main(["check", "--output-format", "json", str(wf)])
    return json.loads(capsys.readouterr().out)["problems"]


USED = [
    # the repro: the name is read in the body
    ("import os\n\n\ndef read(invoices):\n    mode = os.environ.get('MODE')\n"
     "    return {r['id']: r['amount'] for r in invoices if mode is None}\n"),
    # a typing name used outside an annotation
    ("from typing import Dict\n\n\ndef read(invoices):\n    out = Dict()\n"
     "    return {r['id']: r['amount'] for r in invoices if out is not None}\n"),
    # one name of two is used in the body
    ("from typing import List, cast\n\n\ndef read(invoices: List[dict]):\n"
     "    return {r['id']: cast(str, r['amount']) for r in invoices}\n"),
]


@pytest.mark.parametrize("src", USED, ids=["os-in-body", "typing-in-body", "cast-in-body"])
def test_an_import_still_used_is_never_removed_by_a_safe_fix(tmp_path, capsys, src):
    wf = workflow(tmp_path, src)
    assert main(["check", str(wf)]) == 1
    out = capsys.readouterr().out
    assert "SS101" in out and "fixable with the `--fix` option" not in out
    assert main(["check", "--fix", str(wf)]) == 1
    capsys.readouterr()
    assert (wf / "steps" / "read.py").read_text() == src  # nothing left undefined
    assert [p["code"] for p in problems(capsys, wf)] == ["SS101"]
    # not offered as a guess either: it would leave an undefined name
    assert main(["check", "--fix", "--unsafe-fixes", str(wf)]) == 1
    capsys.readouterr()
    assert (wf / "steps" / "read.py").read_text() == src


TYPED = ("from typing import Dict, List\n\n\n"
         "def read(invoices: List[Dict[str, str]]) -> Dict[str, str]:\n"
         "    out: Dict[str, str] = {}\n"
         "    for r in invoices:\n"
         "        out[r['id']] = r['amount']\n"
         "    return out\n")
TYPED_FIXED = ("\n\ndef read(invoices):\n"
               "    out = {}\n"
               "    for r in invoices:\n"
               "        out[r['id']] = r['amount']\n"
               "    return out\n")


def test_typing_names_only_in_annotations_go_with_their_annotations(tmp_path, capsys):
    wf = workflow(tmp_path, TYPED)
    assert main(["check", str(wf)]) == 1
    assert "[*] 1 fixable with the `--fix` option." in capsys.readouterr().out
    assert main(["check", "--fix", "--show-fixes", str(wf)]) == 0
    out = capsys.readouterr().out
    assert "1 × SS101" in out and "(1 fixed, 0 remaining)" in out
    assert (wf / "steps" / "read.py").read_text() == TYPED_FIXED
    assert problems(capsys, wf) == []
    assert main(["test", str(wf)]) == 0  # the fixed step runs in the sandbox, as it meant
    assert "1 passed" in capsys.readouterr().out


@pytest.mark.parametrize("src, titles", [
    (USED[0], []),
    (TYPED, ["Remove the disallowed import and the annotations using Dict, List"]),
], ids=["used", "typing-annotations"])
def test_every_front_end_offers_the_same_fixes(tmp_path, src, titles):
    """The editor's quick fixes and fix-all, and MCP `check`, read the same vetted fixes."""
    from stepsmith.runner.agent.scope import Scope
    from stepsmith.runner.agent.tools import check
    from stepsmith.runner.app.fix import disk_snapshot
    from stepsmith.runner.language.actions import quick_fixes
    from stepsmith.runner.language.fixall import fix_all
    from stepsmith.runner.workspace.diagnostics import diagnostics
    from stepsmith.runner.workspace.index import norm

    wf = workflow(tmp_path, src)
    snap = disk_snapshot([norm(wf / "workflow.yaml")])
    path = norm(wf / "steps" / "read.py")
    (problem,) = diagnostics(snap, path)
    actions = quick_fixes(snap, path, [problem])
    assert [(a.title, a.preferred) for a in actions] == [(t, True) for t in titles]
    whole = fix_all(snap, path)
    assert (whole is None) == (not titles)
    (mcp_problem,) = check(Scope.of([wf])).problems
    assert [(f.title, f.safe, f.preferred) for f in mcp_problem.fixes] == \
        [(t, True, True) for t in titles]


def test_fix_all_applies_two_fixes_together_only_when_both_keep_the_meaning(tmp_path, capsys):
    src = ("import os\nimport os.path\n\n\ndef read(invoices):\n"
           "    return {r['id']: r['amount'] for r in invoices if os.sep}\n")
    wf = workflow(tmp_path, src)
    assert main(["check", "--fix", str(wf)]) == 1
    assert "Found 2 problems in 1 file (1 fixed, 1 remaining)." in capsys.readouterr().out
    text = (wf / "steps" / "read.py").read_text()
    # each alone keeps `os` bound by the other; together they would leave it undefined
    assert text.count("import os") == 1 and "os.sep" in text
    assert [p["code"] for p in problems(capsys, wf)] == ["SS101"]
