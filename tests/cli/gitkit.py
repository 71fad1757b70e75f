"""Real git repositories for the CLI tests that compare with a revision (reach --diff,
check --base): the base workflow committed on `main`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from manifest_kit import BASE, write_workflow


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True,
                          text=True).stdout


def committed_workflow(tmp_path: Path, text: str = BASE) -> Path:
    """A repository holding the base workflow (or the manifest `text`) under wf/, committed."""
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    write_workflow(r / "wf", text)
    git(r, "add", "-A")
    git(r, "commit", "-q", "-m", "base")
    return r
