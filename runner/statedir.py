"""`<workflow>/.stepsmith/`: local state (accepted results, pending changes, --lf state), never
committed. Whatever writes into it first writes its `.gitignore`, so the state never shows in
`git status` whichever command created the folder (`init` writes it up front).

A cloned folder may ship that state: `load_state` is the one reader of its JSON files (and of a
`--durations-path` file), with a size and a depth bound; one that cannot be used is ignored
with a `StateFileWarning` saying why."""

from __future__ import annotations

import json
import os
import re
import stat
import warnings
from itertools import accumulate
from pathlib import Path

from stepsmith.runner import safeio

STATE_DIR = ".stepsmith"
GITIGNORE = b"# local stepsmith state: never commit\n*\n"


def ignore_state(workflow_dir: Path) -> Path:
    """Write `.stepsmith/.gitignore` when it is missing (through safeio: no symlinked
    component, never over an existing file). OSError when it cannot be written."""

    ignore = Path(workflow_dir) / STATE_DIR / ".gitignore"
    if safeio.read_if_exists(ignore, root=workflow_dir, cap=safeio.FIXTURE_CAP) is None:
        try:
            safeio.write_atomic(ignore, GITIGNORE, root=workflow_dir, overwrite=False,
                                durable=False)  # lost: written again next time
        except FileExistsError:  # written meanwhile by another run: fine
            pass
    return ignore


# --- reading state a cloned folder may ship ----------------------------------------------------
#: Run state is flat ({"failed": [...]}, {"step::case": seconds}, ...): deeper is not ours.
MAX_DEPTH = 64
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


class StateFileWarning(UserWarning):
    """A state file could not be used and was ignored (the run goes on as without it)."""


def nesting(raw: bytes) -> int:
    """How deep JSON text nests its arrays and objects (strings skipped), without parsing it:
    json's own parser recurses and ends in RecursionError long before a cap on bytes does.
    Each bracket becomes a +1/-1 byte and their running sum's maximum is the depth (C speed)."""
    deltas = _STRING.sub(b"", raw).translate(_DELTAS, _NOT_BRACKETS)
    return max(accumulate(memoryview(deltas).cast("b")), default=0)


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_DELTAS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


def read_json(path: str | os.PathLike, *, root: str | os.PathLike | None, cap: int
              ) -> tuple[object, str | None]:
    """(document, None); (None, None) when there is no file; (None, why) when it cannot be
    used. Read through safeio below `root` (no symlink, regular file, at most `cap` bytes), or
    a file named on the command line (`root` None) with the same size cap."""

    try:
        if root is None:
            raw = _read_named(Path(path), cap)
        else:
            raw = safeio.read_if_exists(path, root=root, cap=cap)
    except safeio.TooLarge:
        return None, f"larger than {cap} bytes"
    except OSError as exc:
        return None, str(exc.strerror or exc).lower()
    if raw is None:
        return None, None
    if nesting(raw) > MAX_DEPTH:
        return None, f"nested more than {MAX_DEPTH} levels deep"
    try:
        return json.loads(raw), None
    except (ValueError, RecursionError) as exc:
        return None, f"not JSON: {exc}"


def _read_named(path: Path, cap: int) -> bytes | None:
    try:  # O_NONBLOCK: a FIFO named here is refused, not waited on
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError("not a regular file")
        raw = fh.read(cap + 1)
    if len(raw) > cap:
        raise safeio.TooLarge(path, cap)
    return raw


def load_state(path: str | os.PathLike, *, root: str | os.PathLike | None, cap: int) -> object:
    """The document of a state file, or None: absent, or unusable (then a StateFileWarning
    names it and says why, and the caller goes on as without it)."""
    doc, why = read_json(path, root=root, cap=cap)
    if why is not None:
        shown = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
        warnings.warn(f"stepsmith: {shown} is ignored ({why})", StateFileWarning, stacklevel=2)
    return doc
