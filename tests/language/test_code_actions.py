"""Quick fixes that are always right: each one applied, then the edited text re-checked on the
snapshot (the real workflow check and validator). The fix must remove its problem and add none.
Manifest fixes are the edits the rules put on Problem.data; "declare this effect" edits the
manifest from the step file's SS601."""

from __future__ import annotations

from collections import Counter

import pytest
from fix_cases_kit import (
    ALSO_FIXED,
    BILLS_PY,
    BILLS_UNDECLARED,
    MANIFEST,
    MANIFEST_CASES,
    snapshot,
)
from stepsmith.runner.fixes import apply_edits
from stepsmith.runner.language.actions import quick_fixes
from stepsmith.runner.lines import split_lines
from stepsmith.runner.rules import get as rule
from stepsmith.runner.workspace.diagnostics import check_manifest, diagnostics
from stepsmith.runner.workspace.index import norm
from stepsmith.runner.workspace.snapshot import Buffer, WorkspaceSnapshot


def edited(snap: WorkspaceSnapshot, changes: dict[str, tuple]) -> WorkspaceSnapshot:
    """The snapshot with `changes` applied to its files (the client applying the edit)."""
    bufs = dict(snap.buffers)
    for path, edits in changes.items():
        text = apply_edits(snap.read_text(path), edits)
        bufs[path] = Buffer(text, 2, tuple(split_lines(text)))
    (m,) = snap.index.manifests
    ix, _ = snap.index.with_check(m, check_manifest(WorkspaceSnapshot.of(snap.index, bufs), m), 2)
    return WorkspaceSnapshot.of(ix, bufs)


def codes(snap: WorkspaceSnapshot, *paths: str) -> Counter:
    return Counter(p.code for path in paths for p in diagnostics(snap, path))


CERTAIN = {"SM004", "SM204", "SM205"}  # the cases whose first fix is safe


@pytest.mark.parametrize("what, old, new, code, want", [c for c in MANIFEST_CASES],
                         ids=[c[0] for c in MANIFEST_CASES])
def test_manifest_fix_removes_its_problem_and_adds_none(tmp_path, what, old, new, code, want):
    assert old in MANIFEST
    text = MANIFEST.replace(old, new, 1)
    snap = snapshot(tmp_path, {"workflow.yaml": text})
    m = norm(tmp_path / "workflow.yaml")
    before = codes(snap, m)
    problems = [p for p in diagnostics(snap, m) if p.code == code]
    assert problems, before
    actions = quick_fixes(snap, m, problems[:1])
    assert actions and actions[0].code == code
    # preferred = safe: certain, never a guess (did-you-mean)
    assert actions[0].preferred == (code in CERTAIN and what != "unused input, a misspelt parameter")
    assert not any("suppress" in a.title.lower() or "ignore" in a.title.lower() for a in actions)
    fixed = edited(snap, actions[0].changes)
    assert want in fixed.read_text(m)
    after = codes(fixed, m)
    # its problem gone (SM205: every parameter's, the fix adds them all) and none added
    removed = Counter({code: before[code]}) if code == "SM205" else Counter({code: 1})
    removed.update(ALSO_FIXED.get(what, {}))
    assert after == before - removed, (what, fixed.read_text(m))


def test_the_clean_manifest_is_clean(tmp_path):
    snap = snapshot(tmp_path, {})
    assert codes(snap, norm(tmp_path / "workflow.yaml"), norm(tmp_path / "steps/read.py"),
                 norm(tmp_path / "steps/bills.py")) == Counter()


def test_unused_input_offers_rename_first_then_remove(tmp_path):
    text = MANIFEST.replace("      invoices: sources.invoices\n", "      invoice: sources.invoices\n")
    snap = snapshot(tmp_path, {"workflow.yaml": text})
    m = norm(tmp_path / "workflow.yaml")
    (p,) = [p for p in diagnostics(snap, m) if p.code == "SM204"]
    rename, remove = quick_fixes(snap, m, [p])
    assert (rename.title, rename.preferred) == ("Change to 'invoices'", False)  # a guess
    assert (remove.title, remove.preferred) == ("Remove the unused input 'invoice'", False)
    after = apply_edits(text, remove.changes[m])
    # the only input gone: so is `inputs:` (an empty `inputs:` would be SM005)
    assert "    code: steps/read.py:read\n  - id: bills" in after


def test_missing_inputs_all_at_once_reading_a_source_of_the_same_name(tmp_path):
    src = "def read(invoices, rate, limit):\n    return invoices\n"
    snap = snapshot(tmp_path, {"steps/read.py": src})
    m = norm(tmp_path / "workflow.yaml")
    problems = [p for p in diagnostics(snap, m) if p.code == "SM205"]
    assert [p.message.split("'")[1] for p in problems] == ["rate", "limit"]
    fixes = [quick_fixes(snap, m, [p])[0] for p in problems]
    assert fixes[0].changes == fixes[1].changes  # one fix, on each problem
    assert fixes[0].title == "Add the missing inputs 'rate', 'limit'"
    text = apply_edits(MANIFEST, fixes[0].changes[m])
    assert "      invoices: sources.invoices\n      rate: null\n      limit: null\n  - id: bills" in text


def test_no_suppress_action_for_a_security_rule(tmp_path):
    src = "import os\nimport json\n\n\ndef read(invoices):\n    return json.dumps(invoices)\n"
    snap = snapshot(tmp_path, {"steps/read.py": src})
    path = norm(tmp_path / "steps/read.py")
    problems = diagnostics(snap, path)
    assert rule(problems[0].code).security
    actions = quick_fixes(snap, path, problems)
    assert [a.title for a in actions] == ["Remove the disallowed import"]
    fixed = edited(snap, actions[0].changes)
    assert codes(fixed, path) == Counter()




@pytest.mark.parametrize("manifest_edit, want", [
    # the workflow declares the effect: only the step's list gains it
    (("effects:\n  draft_bill:", ("effects:\n  send_note: {connection: xero, kind: send, key: note_id}\n"
      "  draft_bill:")), "    effects: [draft_bill, send_note]\n"),
    # the workflow does not: an entry through its only connection, keyed by the payload's key
    ((None, None), "  send_note: {connection: xero, kind: create, key: note_id}\n"),
    # a block list
    (("    effects: [draft_bill]\n", "    effects:\n      - draft_bill\n"), "      - draft_bill\n      - send_note\n"),
])
def test_declare_this_effect_edits_the_manifest(tmp_path, manifest_edit, want):
    old, new = manifest_edit
    text = MANIFEST.replace(old, new) if old else MANIFEST
    snap = snapshot(tmp_path, {"workflow.yaml": text, "steps/bills.py": BILLS_UNDECLARED})
    path, m = norm(tmp_path / "steps/bills.py"), norm(tmp_path / "workflow.yaml")
    before = codes(snap, path, m)
    (p,) = [p for p in diagnostics(snap, path) if p.code == "SS601"]
    (action,) = [a for a in quick_fixes(snap, path, [p]) if a.fix_kind == "declare-effect"]
    assert list(action.changes) == [m]  # a WorkspaceEdit on the manifest, not the step file
    assert action.title.startswith("Declare effect 'send_note' for step `bills`")
    fixed = edited(snap, action.changes)
    assert want in fixed.read_text(m)
    assert codes(fixed, path, m) == before - Counter({"SS601": 1})


def test_no_declare_effect_when_the_connection_would_be_a_guess(tmp_path):
    text = MANIFEST.replace("  xero: {description: Ledger}\n", "  xero: {description: Ledger}\n"
                            "  mail: {description: Mail}\n")
    snap = snapshot(tmp_path, {"workflow.yaml": text, "steps/bills.py": BILLS_UNDECLARED})
    path = norm(tmp_path / "steps/bills.py")
    (p,) = [p for p in diagnostics(snap, path) if p.code == "SS601"]
    assert [a.fix_kind for a in quick_fixes(snap, path, [p])] == []


def test_a_misspelt_effect_name_is_replaced_in_the_step_file(tmp_path):
    src = BILLS_PY.replace('"draft_bill"', '"draft_bil"')
    snap = snapshot(tmp_path, {"steps/bills.py": src})
    path = norm(tmp_path / "steps/bills.py")
    (p,) = [p for p in diagnostics(snap, path) if p.code == "SS601"]
    first = quick_fixes(snap, path, [p])[0]
    assert (first.title, first.preferred) == ("Change to 'draft_bill'", False)  # a guess
    fixed = edited(snap, first.changes)
    assert fixed.read_text(path) == BILLS_PY and codes(fixed, path) == Counter()


def test_fix_all_in_a_step_file_applies_every_safe_fix_in_rounds(tmp_path):
    from stepsmith.runner.language.fixall import FIX_ALL, fix_all

    src = ("import os, sys\nimport statistics\n\n\n"
           "def read(invoices):\n    import socket; x = statistics.NormalDist(0, 1).samples(3)\n"
           "    return invoices, x\n")
    snap = snapshot(tmp_path, {"steps/read.py": src})
    path = norm(tmp_path / "steps/read.py")
    assert codes(snap, path) == Counter({"SS101": 3, "SS501": 1})
    action = fix_all(snap, path)
    assert action.kind == FIX_ALL == "source.fixAll.stepsmith" and list(action.changes) == [path]
    fixed = edited(snap, action.changes)
    # `os` and `sys` overlap (one statement): the second went in the next round; the seed is
    # the author's to choose (not safe: one fixed draw instead of a random one)
    assert fixed.read_text(path) == (
        "import statistics\n\n\ndef read(invoices):\n"
        "    x = statistics.NormalDist(0, 1).samples(3)\n    return invoices, x\n")
    assert codes(fixed, path) == Counter({"SS501": 1})
    # the edit is minimal hunks, not the whole file
    assert all(e.span.end_line - e.span.line <= 1 for e in action.changes[path])


def test_fix_all_leaves_guesses_and_security_widening_alone(tmp_path):
    from stepsmith.runner.language.fixall import fix_all

    text = (MANIFEST.replace("connections: [xero]", "connections: [xeor]")  # a guess: SM101
            .replace("    explanation: Read the invoices.\n", "")  # certain: the placeholder
            .replace("      rows: steps.read.output\n", "      rows: steps.read.output\n      extra: 1\n"))
    snap = snapshot(tmp_path, {"workflow.yaml": text, "steps/bills.py": BILLS_UNDECLARED})
    m, path = norm(tmp_path / "workflow.yaml"), norm(tmp_path / "steps/bills.py")
    before = codes(snap, m)
    assert before == Counter({"SM101": 1, "SM004": 1, "SM204": 1})
    fixed = edited(snap, fix_all(snap, m).changes)
    assert codes(fixed, m) == Counter({"SM101": 1})
    assert "connections: [xeor]" in fixed.read_text(m)
    # the step file's undeclared effect has no safe fix: nothing to do
    assert fix_all(snap, path) is None


def test_explanation_placeholder_in_a_flow_step(tmp_path):
    old = ("  - id: bills\n    explanation: Draft bills.\n    code: steps/bills.py:bills\n"
           "    inputs:\n      rows: steps.read.output\n    connections: [xero]\n    effects: [draft_bill]\n")
    text = MANIFEST.replace(old, "  - {id: bills, code: steps/bills.py:bills, inputs: {rows: steps.read.output}, "
                            "connections: [xero], effects: [draft_bill]}\n")
    snap = snapshot(tmp_path, {"workflow.yaml": text})
    m = norm(tmp_path / "workflow.yaml")
    (p,) = [p for p in diagnostics(snap, m) if p.code == "SM004"]
    (action,) = quick_fixes(snap, m, [p])
    fixed = edited(snap, action.changes)
    assert 'effects: [draft_bill], explanation: "TODO: say in plain language what this step does"}' \
        in fixed.read_text(m)
    assert codes(fixed, m) == Counter()


def test_a_mismatch_shown_on_the_def_is_fixed_in_the_manifest(tmp_path):
    src = "def read(invoices, limit):\n    return invoices\n"
    snap = snapshot(tmp_path, {"steps/read.py": src})
    path, m = norm(tmp_path / "steps/read.py"), norm(tmp_path / "workflow.yaml")
    (p,) = [p for p in diagnostics(snap, path) if p.code == "SM205"]
    assert p.span.line == 1  # on the `def`
    (action,) = quick_fixes(snap, path, [p])
    assert list(action.changes) == [m] and action.title == "Add the missing input 'limit' (in the manifest)"
    fixed = edited(snap, action.changes)
    assert "      limit: null\n" in fixed.read_text(m)
    assert codes(fixed, m, path) == Counter()


@pytest.mark.parametrize("old, new, want", [
    ("kind: create, key: invoice_id", "kind: creat, key: invoice_id", "kind: create, key: invoice_id"),
    ("trigger: {manual: {}}", "trigger:\n  schedule: {cron: '0 7 * * *', timezone: Europe/Londn}",
     "timezone: Europe/London}"),
    ("trigger: {manual: {}}", "trigger:\n  schedule: {cron: '0 7 * * *', timezone: \"Europe/Londn\"}",
     'timezone: "Europe/London"}'),
    ("    connections: [xero]\n", "    connections: [xero]\n    network: public_egres\n",
     "    network: public_egress\n"),
])
def test_did_you_mean_on_a_wrong_value(tmp_path, old, new, want):
    text = MANIFEST.replace(old, new)
    snap = snapshot(tmp_path, {"workflow.yaml": text})
    m = norm(tmp_path / "workflow.yaml")
    (p,) = [p for p in diagnostics(snap, m) if p.code == "SM005"]
    assert "did you mean" in p.message
    first = quick_fixes(snap, m, [p])[0]
    fixed = edited(snap, first.changes)
    assert want in fixed.read_text(m)
    assert codes(fixed, m) == codes(snap, m) - Counter({"SM005": 1})
