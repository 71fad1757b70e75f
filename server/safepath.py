"""Never import from the folder the server was started in (issue 18, item 1).

`python -m stepsmith.server` (and `-c`) puts the current folder first on sys.path, so a cloned
workflow folder shipping `yaml.py` or `pygls/` would run as the user when an editor starts the
server there. Editors should launch with `-P` / PYTHONSAFEPATH=1 from another folder (the VS Code
extension does); this is the defence in depth for hand-written set-ups. It imports only `os`,
which the interpreter has loaded before any path entry is consulted.
"""

from __future__ import annotations

import os
import sys


def without_start_folder(path: list[str], cwd: str | None = None) -> list[str]:
    """`path` without '' , relative entries (both resolve against the start folder) and entries
    naming the start folder itself (also through a symlink)."""
    here = os.path.realpath(cwd if cwd is not None else os.getcwd())
    kept = []
    for entry in path:
        if not entry or not os.path.isabs(entry):
            continue
        if os.path.realpath(entry) == here:
            continue
        kept.append(entry)
    return kept


def drop_start_folder() -> None:
    """Apply `without_start_folder` to sys.path in place (before any further import)."""

    try:
        sys.path[:] = without_start_folder(sys.path)
    except OSError:  # the start folder is gone: then nothing can be imported from it either
        sys.path[:] = [p for p in sys.path if p and os.path.isabs(p)]
