"""`<workflow>/.stepsmith/`: local state (accepted results, pending changes, --lf state), never
committed. Whatever writes into it first writes its `.gitignore`, so the state never shows in
`git status` whichever command created the folder (`init` writes it up front)."""

from __future__ import annotations

from pathlib import Path

STATE_DIR = ".stepsmith"
GITIGNORE = b"# local stepsmith state: never commit\n*\n"


def ignore_state(workflow_dir: Path) -> Path:
    """Write `.stepsmith/.gitignore` when it is missing (through safeio: no symlinked
    component, never over an existing file). OSError when it cannot be written."""
    from stepsmith.runner import safeio

    ignore = Path(workflow_dir) / STATE_DIR / ".gitignore"
    if safeio.read_if_exists(ignore, root=workflow_dir, cap=safeio.FIXTURE_CAP) is None:
        try:
            safeio.write_atomic(ignore, GITIGNORE, root=workflow_dir, overwrite=False,
                                durable=False)  # lost: written again next time
        except FileExistsError:  # written meanwhile by another run: fine
            pass
    return ignore
