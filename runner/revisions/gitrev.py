"""Files at a git revision, read with git itself (`git ls-tree`, `git show REV:path`); the work
tree is never checked out or touched. Every read is capped: a hostile history cannot make us
hold more than `cap` bytes of one blob.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from stepsmith.runner.model.grammar import is_manifest_name
from stepsmith.runner.workspace.discovery import SKIP_DIRS

BLOB_CAP = 16 * 1024 * 1024


class GitError(Exception):
    """git is missing, the path is not in a repository, or REV names no commit."""


def _git(args: list[str], cwd: Path, *, cap: int | None = None) -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    try:
        # a repository's own config may name programs to run (fsmonitor, hooks): never here
        proc = subprocess.run(["git", "-c", "core.quotePath=false", "-c", "core.fsmonitor=false",
                               "-c", "core.hooksPath=/dev/null", *args], cwd=cwd, env=env,
                              capture_output=True, timeout=60,
                              check=False)
    except FileNotFoundError as exc:
        raise GitError("git is not installed (apt-get install git)") from exc
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {args[0]} took longer than 60 s") from exc
    if proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(msg[-1] if msg else f"git {args[0]} failed ({proc.returncode})")
    if cap is not None and len(proc.stdout) > cap:
        raise GitError(f"blob larger than {cap} bytes")
    return proc.stdout


class Revision:
    """One commit of the repository holding `start`; paths are relative to the repo's top."""

    def __init__(self, start: Path, rev: str):
        if rev.startswith("-"):
            raise GitError(f"{rev!r} is not a revision")
        folder = start if start.is_dir() else start.parent
        self.top = Path(_git(["rev-parse", "--show-toplevel"], folder).decode().strip())
        self.rev = rev
        self.commit = _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                           self.top).decode().strip()

    def relative(self, path: Path) -> str:
        return Path(os.path.relpath(Path(path).resolve(), self.top.resolve())).as_posix()

    def manifests_under(self, path: Path) -> list[str]:
        """Manifest paths (repo-relative) at this revision under `path`, skipping the folders
        discovery skips in the work tree."""
        rel = self.relative(path)
        spec = [] if rel == "." else ["--", rel]
        out = _git(["ls-tree", "-r", "-z", "--name-only", self.commit, *spec], self.top)
        found = []
        for name in out.decode("utf-8", "surrogateescape").split("\0"):
            if not name:
                continue
            parts = name.split("/")
            if any(p.startswith(".") or p in SKIP_DIRS for p in parts[:-1]):
                continue
            if is_manifest_name(parts[-1]):
                found.append(name)
        return sorted(found)

    def read(self, relpath: str, cap: int = BLOB_CAP) -> bytes | None:
        """The blob at `relpath`, or None when this revision has no such file (or it is not a
        regular file: a symlink's target text is never taken for content)."""
        entry = _git(["ls-tree", "-z", self.commit, "--", relpath], self.top)
        if not entry:
            return None
        mode = entry.split(b" ", 1)[0]
        if mode not in (b"100644", b"100755"):
            return None
        return _git(["cat-file", "blob", f"{self.commit}:{relpath}"], self.top, cap=cap)
