"""Files at a git revision, read with git itself (`git ls-tree`, `git cat-file`); the work
tree is never checked out or touched.

The repository may be hostile (a clone, a tarball with its `.git`), so every invocation:
- reads the repository the user meant: the folder's nearest enclosing work tree with a real
  `.git` (a directory, or a linked work tree's file), with discovery bounded there
  (`GIT_CEILING_DIRECTORIES`) and embedded bare repositories refused
  (`safe.bareRepository=explicit`): a committed folder holding `HEAD`, `refs/`, `objects/` and
  a `config` is never taken for a repository;
- never reaches a remote, so never runs a program a config names to reach one: lazy fetching
  of a partial clone's missing objects is off (`GIT_NO_LAZY_FETCH`), and every transport is
  refused (`GIT_ALLOW_PROTOCOL` empty, which no `protocol.<name>.allow` of the repository's
  config overrides; `protocol.allow=never` besides); an object that is not there is "cannot
  be read at REV", which callers compare as absent (it cannot hide a widening);
- overrides the other keys that name programs (`core.sshCommand`, `credential.helper`,
  `core.askPass`, `diff.external`, fsmonitor, hooks; command-line config wins over the
  repository's) and starts git with a minimal environment (no inherited `GIT_*` variable
  redirects it: `GIT_DIR`, `GIT_CONFIG_*`, `GIT_EXEC_PATH`, ...; no `SSH_ASKPASS`);
- reads its output with a cap applied while reading: a hostile history cannot make us hold
  more than `cap` bytes of one blob or listing.
The plumbing called (`rev-parse`, `ls-tree`, `cat-file blob`) applies no textconv and no
filter (tests/cli/test_git_hostile.py proves each key unused).
"""

from __future__ import annotations

import os
import stat
import subprocess
import tempfile
import threading
from pathlib import Path

from stepsmith.runner.model.grammar import is_manifest_name
from stepsmith.runner.workspace.discovery import SKIP_DIRS

BLOB_CAP = 16 * 1024 * 1024
LIST_CAP = 64 * 1024 * 1024  # an ls-tree listing
TIMEOUT_S = 60
_CHUNK = 1 << 16
_STDERR_CAP = 64 * 1024

# command-line config: it wins over every file git reads, the repository's own included
CONFIG = (
    "core.quotePath=false",
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "safe.bareRepository=explicit",
    "protocol.allow=never",
    "core.sshCommand=false",
    "credential.helper=",  # an empty value empties the list of helpers
    "core.askPass=",
    "diff.external=",  # a diff would fail instead of running a program (none is run)
)
# the only variables git gets from ours: where it is, and the user's own global config
_INHERITED = ("PATH", "HOME", "XDG_CONFIG_HOME")


class GitError(Exception):
    """git is missing, the path is not in a repository, REV names no commit, or what was
    asked cannot be read at REV."""


def work_tree(folder: Path) -> Path:
    """The nearest folder at or above `folder` holding a `.git` directory or file."""
    folder = Path(os.path.realpath(folder))
    for d in (folder, *folder.parents):
        try:
            st = os.lstat(d / ".git")
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode):
            return d
        raise GitError(f"{d / '.git'} is not a directory or a file: not read")
    raise GitError(f"{folder} is not in a git repository (no .git above it)")


def environment(top: Path) -> dict[str, str]:
    """git's whole environment: discovery cannot leave `top`, nothing is fetched."""
    env = {k: os.environ[k] for k in _INHERITED if k in os.environ}
    env.update(LC_ALL="C", GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0",
               GIT_NO_LAZY_FETCH="1", GIT_ALLOW_PROTOCOL="", GIT_NO_REPLACE_OBJECTS="1",
               GIT_CEILING_DIRECTORIES=str(top.parent))
    return env


def command(args: list[str]) -> list[str]:
    argv = ["git", "--no-pager"]
    for item in CONFIG:
        argv += ["-c", item]
    return argv + args


def _git(args: list[str], top: Path, *, cap: int = LIST_CAP) -> bytes:
    """git's output for `args`, run at `top`; GitError when it fails or says more than
    `cap` bytes (it is stopped as soon as it does)."""
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(command(args), cwd=top, env=environment(top),
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=err)
        except OSError as exc:
            raise GitError("git is not installed (apt-get install git)") from exc
        timed_out = threading.Event()

        def stop() -> None:
            timed_out.set()
            proc.kill()

        timer = threading.Timer(TIMEOUT_S, stop)
        timer.start()
        chunks: list[bytes] = []
        size = 0
        try:
            assert proc.stdout is not None
            while chunk := proc.stdout.read1(_CHUNK):
                size += len(chunk)
                if size > cap:
                    proc.kill()
                    break
                chunks.append(chunk)
        finally:
            proc.stdout.close()
            returncode = proc.wait()
            timer.cancel()
        if timed_out.is_set():
            raise GitError(f"git {args[0]} took longer than {TIMEOUT_S} s")
        if size > cap:
            raise GitError(f"larger than {cap} bytes")
        if returncode != 0:
            err.seek(0)
            lines = err.read(_STDERR_CAP).decode("utf-8", "replace").strip().splitlines()
            raise GitError(lines[-1].removeprefix("fatal: ") if lines
                           else f"git {args[0]} failed ({returncode})")
    return b"".join(chunks)


class Revision:
    """One commit of the repository holding `start`; paths are relative to the repo's top."""

    def __init__(self, start: Path, rev: str):
        if rev.startswith("-"):
            raise GitError(f"{rev!r} is not a revision")
        start = Path(start)
        self.top = work_tree(start if start.is_dir() else start.parent)
        self.rev = rev
        try:
            self.commit = _git(["rev-parse", "--verify", "--quiet", "--end-of-options",
                                f"{rev}^{{commit}}"], self.top).decode().strip()
        except GitError as exc:
            raise GitError(f"{rev!r} names no commit of {self.top} ({exc})") from None

    def _read(self, args: list[str], cap: int = LIST_CAP) -> bytes:
        try:
            return _git(args, self.top, cap=cap)
        except GitError as exc:
            raise GitError(f"cannot be read at {self.rev}: {exc}") from None

    def relative(self, path: Path) -> str:
        return Path(os.path.relpath(Path(path).resolve(), self.top)).as_posix()

    def manifests_under(self, path: Path) -> list[str]:
        """Manifest paths (repo-relative) at this revision under `path`, skipping the folders
        discovery skips in the work tree."""
        rel = self.relative(path)
        spec = [] if rel == "." else ["--", rel]
        out = self._read(["ls-tree", "-r", "-z", "--name-only", self.commit, *spec])
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
        regular file: a symlink's target text is never taken for content). GitError "cannot
        be read at REV" when git cannot give it (a partial clone's missing object, a blob
        over `cap`)."""
        entry = self._read(["ls-tree", "-z", self.commit, "--", relpath])
        if not entry:
            return None
        mode = entry.split(b" ", 1)[0]
        if mode not in (b"100644", b"100755"):
            return None
        return self._read(["cat-file", "blob", f"{self.commit}:{relpath}"], cap=cap)
