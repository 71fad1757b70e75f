"""`.stepsmith/` is local state; whatever creates it also writes its
`.gitignore` (`stepsmith test`'s lastfailed.json; `stepsmith init`), so it never shows in
`git status`. Real git."""

import subprocess

import pytest
from stepsmith.runner.cli import main

pytestmark = pytest.mark.usefixtures("sandbox")


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout


def test_test_writes_the_gitignore_with_lastfailed(tmp_path, kit, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    wf = kit.write_workflow(tmp_path / "wf", fixtures={"add/simple": kit.add_case(
        "1.00", None, "1.50")})
    git(tmp_path, "init", "-q")
    assert main(["test", "wf"]) == 0
    assert (wf / ".stepsmith" / "lastfailed.json").exists()
    assert (wf / ".stepsmith" / ".gitignore").read_text().endswith("*\n")
    assert ".stepsmith" not in git(tmp_path, "status", "--porcelain", "--untracked-files=all")


def test_init_writes_the_gitignore(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init", "flow"]) == 0
    assert (tmp_path / "flow" / ".stepsmith" / ".gitignore").read_text().endswith("*\n")
    out = capsys.readouterr().out
    assert "flow/.stepsmith/.gitignore" in out
