"""The editor's answer for one fixture file (`app.check.fixture_file_problems`) is `check`'s
for that file, on the open buffer's text; SF001 compares saved fixtures, so it is said only
while the buffer is the saved text (never of a text it was not computed on)."""

from __future__ import annotations

import json

import wfkit as wfkit
from stepsmith.runner.app.check import check, fixture_file_problems
from stepsmith.runner.lines import split_lines
from stepsmith.runner.workspace.index import WorkspaceIndex, norm
from stepsmith.runner.workspace.snapshot import Buffer, WorkspaceSnapshot

# recorded from case day1, but add/x now outputs another sum than the input it holds
STALE = {"inputs": {"total": {"sum": "9.99"}}, "evaluation_time": "2026-12-01T07:00:00+00:00",
         "expected": {"output": {"twice": "19.98"}, "effects": []},
         "recorded_from": {"case": "day1", "upstream": {"add": {"fixture": "x",
                                                                "request_sha256": "0" * 64}}}}


def snapshot(manifest, buffers=None) -> WorkspaceSnapshot:
    return WorkspaceSnapshot.of(WorkspaceIndex().with_manifests([str(manifest)]), {
        norm(p): Buffer(t, 2, tuple(split_lines(t))) for p, t in (buffers or {}).items()})


def codes(problems) -> list[str]:
    return sorted(p.code for p in problems)


def test_a_fixture_file_has_checks_findings_on_its_buffer(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # SF001's message shows paths from the current folder
    wf = wfkit.write_workflow(tmp_path / "wf", fixtures={
        "add/x": wfkit.add_case("1.00", None, "1.50"), "double/wired": STALE})
    wired = wf / "fixtures" / "double" / "wired.json"
    want = check([str(wf)], cache=False).by_file()[wired.resolve()]
    assert codes(want) == ["SF001"]
    # on the disk, and on a buffer holding the saved text: check's very findings
    assert fixture_file_problems(snapshot(wf / "workflow.yaml"), str(wired)) == want
    saved = wired.read_text()
    assert fixture_file_problems(snapshot(wf / "workflow.yaml", {wired: saved}),
                                 str(wired)) == want
    # an edited buffer: its own findings, and no SF001 (it compared the saved file)
    edited = json.dumps({**STALE, "inputs": {"totl": STALE["inputs"]["total"]}})
    got = fixture_file_problems(snapshot(wf / "workflow.yaml", {wired: edited}), str(wired))
    assert codes(got) == ["SF005", "SF006"]
    # not a fixture file of a workflow: no answer
    assert fixture_file_problems(snapshot(wf / "workflow.yaml"), str(wf / "notes.json")) is None
