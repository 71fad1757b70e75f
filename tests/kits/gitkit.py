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


def partial_clone(tmp_path: Path) -> tuple[Path, str]:
    """A blob-less partial clone (`--filter=blob:none`, from a reachable file:// origin) of a
    two-commit history, and the manifest blob at HEAD~1, which it never fetched: reading it
    needs the promisor remote."""
    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    git(origin, "config", "uploadpack.allowFilter", "true")
    write_workflow(origin / "wf", BASE)
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "base")
    (origin / "wf" / "workflow.yaml").write_text(BASE.replace("version: 3", "version: 4"))
    git(origin, "commit", "-qam", "bump")
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{origin}", "clone")
    clone = tmp_path / "clone"
    return clone, git(clone, "rev-parse", "HEAD~1:wf/workflow.yaml").strip()
