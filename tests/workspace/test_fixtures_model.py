"""The one fixtures model (runner/workspace/fixtures.py): listings with safeio's symlink policy,
the owners of a fixture file, and "run this fixture" on the manifest declaring its step."""

from __future__ import annotations

import os

from stepsmith.runner.workspace.fixtures import (
    fixture_files,
    folder_fixture_files,
    owners,
    step_of,
)
from stepsmith.runner.workspace.snapshot import WorkspaceSnapshot

HEAD = ('version: 1\npython: "3.11"\ntrigger: {manual: {}}\nconnections:\n  l: {description: L}\n'
        "sources:\n  rows: {connection: l, description: Rows}\nsteps:\n")


def manifest(folder, name: str, steps: list[str]) -> str:
    body = "".join(f"  - id: {s}\n    explanation: {s}.\n    code: steps/s.py:f\n"
                   f"    inputs: {{records: sources.rows}}\n" for s in steps)
    (folder / name).write_text(f"workflow: {name.split('.')[0]}\n" + HEAD + body)
    return os.path.normpath(str(folder / name))


def fixture(folder, step: str, case: str):
    d = folder / "fixtures" / step
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{case}.json").write_text("{}")
    return d / f"{case}.json"


def test_listings_skip_symlinks_and_non_json(tmp_path):
    m = manifest(tmp_path, "workflow.yaml", ["a"])
    one = fixture(tmp_path, "a", "one")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.json"
    outside.write_text("{}")
    (one.parent / "link.json").symlink_to(outside)
    (one.parent / "notes.txt").write_text("x")
    (one.parent / "dir.json").mkdir()
    assert [p.name for p in fixture_files(m, "a")] == ["one.json"]
    other = tmp_path.parent / f"{tmp_path.name}-other"
    (other / "b").mkdir(parents=True)
    (other / "b" / "x.json").write_text("{}")
    (tmp_path / "fixtures" / "b").symlink_to(other / "b")  # a symlinked step folder
    assert fixture_files(m, "b") == []
    assert [os.path.basename(p) for p in folder_fixture_files(str(tmp_path))] == ["one.json"]
    assert fixture_files(m, "..") == [] and fixture_files(m, "a/../a") == []


def test_a_symlinked_fixtures_folder_lists_nothing(tmp_path):
    real = tmp_path / "elsewhere"
    (real / "a").mkdir(parents=True)
    (real / "a" / "x.json").write_text("{}")
    wf = tmp_path / "wf"
    wf.mkdir()
    m = manifest(wf, "workflow.yaml", ["a"])
    (wf / "fixtures").symlink_to(real)
    assert fixture_files(m, "a") == [] and folder_fixture_files(str(wf)) == []


def test_owners_are_the_manifests_declaring_the_step(tmp_path):
    first = manifest(tmp_path, "a.workflow.yaml", ["x"])
    second = manifest(tmp_path, "b.workflow.yaml", ["y", "x"])
    fx = fixture(tmp_path, "y", "case")
    snap = WorkspaceSnapshot()
    assert owners(snap, fx) == [(second, "y")]
    assert owners(snap, fixture(tmp_path, "x", "c")) == [(first, "x"), (second, "x")]
    assert owners(snap, fixture(tmp_path, "nobody", "c")) == []
    assert step_of(tmp_path / "fixtures" / "_workflow" / "w.json") is None
    assert step_of(tmp_path / "other" / "y" / "c.json") is None


def test_run_this_fixture_uses_the_manifest_declaring_its_step(tmp_path):
    """Issue 21: the run used the folder's FIRST manifest, which does not declare `y`."""
    from stepsmith.server.fixture_runs import Runner

    manifest(tmp_path, "a.workflow.yaml", ["x"])
    second = manifest(tmp_path, "b.workflow.yaml", ["y"])
    snap = WorkspaceSnapshot()
    assert Runner._fixture_owner(snap, str(fixture(tmp_path, "y", "case"))) == (second, "y")
    # a step no manifest declares: the first manifest reports it as an unknown step
    assert Runner._fixture_owner(snap, str(fixture(tmp_path, "z", "c")))[1] == "z"
    lone = tmp_path / "lone"
    assert Runner._fixture_owner(snap, str(fixture(lone, "z", "c"))) is None


def test_a_file_whose_name_is_not_a_case_name_is_never_listed(tmp_path):
    """The server's fixture listing, lenses and runs list through here: a name that could not
    be a node id (`$(id>PWNED)`, backticks, `${...}`, capitals, spaces) is left out, as
    `stepsmith test` leaves it out (reported there and by `check` as SF009)."""
    m = manifest(tmp_path, "workflow.yaml", ["a"])
    fixture(tmp_path, "a", "one")
    for bad in ("$(id>PWNED)", "`id`", "${HOME}", "Two", "with space", ".hidden", "-dash"):
        fixture(tmp_path, "a", bad)
    assert [p.name for p in fixture_files(m, "a")] == ["one.json"]
    assert [os.path.basename(p) for p in folder_fixture_files(str(tmp_path))] == ["one.json"]
