"""A cloned folder's `stepsmith.toml` / `[tool.stepsmith]` is
untrusted input. It is read through runner/safeio.py (a regular file whose real path lies in
its own folder, capped), and its `paths` may not leave the project folder: otherwise a bare
`stepsmith test` in the clone ran (and wrote pending changes into) a folder elsewhere."""

import json
import os

import pytest
from stepsmith.runner.settings import CONFIG_CAP, SettingsError, load_settings
from wfkit import cli


def failing_workflow(kit, root):
    """A workflow whose `add/simple` fixture fails: `stepsmith test` writes a pending change."""
    fixtures = kit.passing_fixtures()
    fixtures["add/simple"]["expected"]["output"]["sum"] = "9.99"
    return kit.full_workflow(root, fixtures)


@pytest.mark.parametrize("entry", ["../elsewhere", "ABS", "link", "flows/../../elsewhere"])
def test_paths_outside_the_project_folder_are_refused(kit, tmp_path, capsys, monkeypatch,
                                                      entry):
    elsewhere = failing_workflow(kit, tmp_path / "elsewhere")
    clone = tmp_path / "clone"
    (clone / "flows").mkdir(parents=True)
    os.symlink(elsewhere, clone / "link")  # a folder inside that is really outside
    value = str(elsewhere) if entry == "ABS" else entry
    (clone / "stepsmith.toml").write_text(f"paths = [{json.dumps(value)}]\n")
    monkeypatch.chdir(clone)
    for argv in (["test"], ["check"], ["--show-settings"]):
        code, out, err = cli(capsys, *argv)
        assert code == 2, (argv, code, out, err)
        assert "outside the project folder" in err and repr(value) in err, err
    assert not (elsewhere / ".stepsmith").exists(), "a pending change was written elsewhere"


def test_paths_inside_the_project_folder_still_work(kit, tmp_path, capsys, monkeypatch):
    wf = failing_workflow(kit, tmp_path / "proj" / "flows" / "wf")
    (tmp_path / "proj" / "pyproject.toml").write_text(
        '[tool.stepsmith]\npaths = ["flows", "./flows/wf"]\n')
    monkeypatch.chdir(tmp_path / "proj")
    code, _, err = cli(capsys, "test", "--format", "json")
    assert code == 1, err  # the planted failure, found through `paths`
    assert (wf / ".stepsmith" / "pending").is_dir()


@pytest.mark.parametrize("name", ["stepsmith.toml", "pyproject.toml"])
def test_a_settings_file_symlinked_out_of_the_folder_is_refused(tmp_path, name):
    host = tmp_path / "host-only.toml"
    host.write_text('jobs = 3\n[tool.stepsmith]\njobs = 3\n')
    clone = tmp_path / "clone"
    clone.mkdir()
    os.symlink(host, clone / name)
    with pytest.raises(SettingsError, match="outside"):
        load_settings(clone)


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_a_settings_file_that_is_not_a_regular_file_is_refused(tmp_path, target):
    clone = tmp_path / "clone"
    clone.mkdir()
    if target == "fifo":
        os.mkfifo(clone / "stepsmith.toml")  # would block an unguarded open()
    else:
        os.symlink(target, clone / "stepsmith.toml")
    with pytest.raises(SettingsError, match="stepsmith.toml"):
        load_settings(clone)


def test_a_huge_settings_file_is_refused_before_it_is_parsed(tmp_path, capsys, monkeypatch):
    clone = tmp_path / "clone"
    clone.mkdir()
    filler = "# " + "x" * 1000 + "\n"
    (clone / "pyproject.toml").write_text(
        "[tool.stepsmith]\njobs = 2\n" + filler * (CONFIG_CAP // len(filler) + 1))
    monkeypatch.chdir(clone)
    code, _, err = cli(capsys, "--show-settings")
    assert code == 2 and "pyproject.toml" in err and "limit" in err, err


def test_a_symlink_to_a_file_in_the_same_folder_is_read(tmp_path):
    clone = tmp_path / "clone"
    clone.mkdir()
    (clone / "shared.toml").write_text("jobs = 3\n")
    os.symlink("shared.toml", clone / "stepsmith.toml")
    assert load_settings(clone).jobs == 3
