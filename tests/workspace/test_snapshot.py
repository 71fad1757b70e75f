"""WorkspaceSnapshot / WorkspaceIndex / diagnostics(): the one answer to cross-file questions,
on buffers over the disk, without a server."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "manifest"))
from manifest_kit import BASE, pos, write_workflow
from stepsmith.runner.lines import split_lines
from stepsmith.runner.manifest import check_workflow
from stepsmith.runner.workspace.diagnostics import check_manifest, diagnostics
from stepsmith.runner.workspace.fixtures import fixture_files
from stepsmith.runner.workspace.index import WorkspaceIndex, norm
from stepsmith.runner.workspace.snapshot import Buffer, WorkspaceSnapshot

EGRESS = BASE.replace("    code: steps/match.py:match\n",
                      "    code: steps/match.py:match\n    network: public_egress\n")
assert EGRESS != BASE
NET_PY = "import urllib.request\n\n\ndef match(invoices, purchase_orders, tolerance):\n    return []\n"


def _indexed(manifest: Path, buffers=None) -> WorkspaceSnapshot:
    m = norm(manifest)
    ix = WorkspaceIndex().with_folders([str(manifest.parent)]).with_manifests([m])
    snap = WorkspaceSnapshot.of(ix, buffers or {})
    ix, _ = ix.with_check(m, check_manifest(snap, m), None)
    return WorkspaceSnapshot.of(ix, buffers or {})


def buf(text: str, version: int = 1) -> Buffer:
    return Buffer(text, version, tuple(split_lines(text)), "python")


def test_step_file_is_validated_with_its_workflow_context(tmp_path):
    m = write_workflow(tmp_path, EGRESS, {"steps/match.py": NET_PY, "steps/bills.py": "def draft(matches, connections, effects):\n    return 1\n"})
    step = norm(tmp_path / "steps/match.py")
    snap = _indexed(m)
    assert [u.step_id for u in snap.step_context(step)[1]] == ["match"]
    assert diagnostics(snap, step) == []  # public_egress: urllib is allowed
    # without a workflow naming it, the same text is refused
    assert [p.code for p in diagnostics(WorkspaceSnapshot(), step)] == ["SS105"]


def test_manifest_check_does_not_validate_step_files(tmp_path):
    m = write_workflow(tmp_path, BASE, {"steps/match.py": "def match(invoices, purchase_orders, tolerance):\n    return eval('1')\n",
                                        "steps/bills.py": "def draft(matches, connections, effects):\n    return 1\n"})
    full = check_workflow(m)
    assert [p.code for p in full.problems[tmp_path / "steps/match.py"]] == ["SS301"]
    snap = _indexed(m)
    check = snap.index.get(norm(m)).check
    assert check.problems[m.parent / "steps/match.py"] == []  # validated once, by diagnostics()
    assert [p.code for p in diagnostics(snap, norm(tmp_path / "steps/match.py"))] == ["SS301"]


def test_buffers_win_over_disk_and_positions_are_exact(tmp_path):
    m = write_workflow(tmp_path)
    step = norm(tmp_path / "steps/match.py")
    text = "from decimal import Decimal\n\n\ndef match(invoices, purchase_orders, tolerance):\n    return 'é𝔘' + eval(x)\n"
    snap = _indexed(m, {step: buf(text)})
    (p,) = diagnostics(snap, step)
    assert (p.code, p.span.line, p.span.column) == ("SS301", 5, 18)
    loc = snap.resolve_code(norm(m), "match")
    assert (loc.path, loc.span.line, loc.span.column) == (step, 4, 4)


def test_broken_manifest_keeps_the_last_good_context(tmp_path):
    m = write_workflow(tmp_path, EGRESS, {"steps/match.py": NET_PY, "steps/bills.py": "def draft(matches, connections, effects):\n    return 1\n"})
    key, step = norm(m), norm(tmp_path / "steps/match.py")
    snap = _indexed(m)
    broken = {key: buf(EGRESS.replace("steps:\n", "steps:\n  - id: [\n"))}
    bsnap = WorkspaceSnapshot.of(snap.index, broken)
    check = check_manifest(bsnap, key)
    assert check.manifest.workflow is None
    ix, changed = snap.index.with_check(key, check, 1)
    assert changed == set()
    assert diagnostics(WorkspaceSnapshot.of(ix, {}), step) == []  # no false SS105


def test_a_missing_code_file_is_still_known_as_named(tmp_path):
    m = write_workflow(tmp_path, BASE, {"steps/bills.py": "def draft(matches, connections, effects):\n    return 1\n"})
    snap = _indexed(m)
    missing = norm(tmp_path / "steps/match.py")
    assert [e.path for e in snap.manifests_using(missing)] == [norm(m)]
    assert "SM201" in [p.code for p in diagnostics(snap, norm(m))]
    assert snap.resolve_code(norm(m), "match") is None


def test_steps_using_a_function_and_fixture_listing(tmp_path):
    m = write_workflow(tmp_path)
    (tmp_path / "fixtures/match").mkdir(parents=True)
    (tmp_path / "fixtures/match/one.json").write_text("{}")
    snap = _indexed(m)
    (s,) = snap.steps_using(norm(tmp_path / "steps/bills.py"), "draft")
    assert (s.id, s.code.function) == ("draft", "draft")
    assert (s.code_span.line, s.code_span.column) == pos(BASE, "steps/bills.py:draft")
    assert [p.name for p in fixture_files(norm(m), "match")] == ["one.json"]
    span = snap.step_location(norm(m), "draft").span
    assert (span.line, span.column) == pos(BASE, "draft\n")
