"""Paths and node ids pasted where stepsmith printed them (issue 20): inside a workflow folder
stepsmith shows the folder by its name (`recon::step::case`, `stepsmith record recon ...`, as
pytest shows node ids from its rootdir), so such a path must work there too. Light: the CLI
applies it to every command's PATHs before anything heavy is imported."""

from __future__ import annotations

import os
from pathlib import Path

from stepsmith.runner.workspace.discovery import nearest_manifests


def from_inside(arg: str) -> str:
    """A PATH (or node id) as printed from inside a workflow folder, where stepsmith shows
    the folder by its name (`recon::step::case`, `stepsmith record recon ...`): when it does
    not exist from here but does from the parent of the workflow folder holding the current
    directory, the path from here. A path that exists as given always wins."""

    path_part, sep, node = arg.partition("::")
    if not path_part or os.path.isabs(path_part) or os.path.lexists(path_part):
        return arg
    found = nearest_manifests(".")
    if not found:
        return arg
    folder = Path(os.path.abspath(found[0].parent))
    candidate = Path(os.path.normpath(folder.parent / path_part))
    if candidate != folder and folder not in candidate.parents:
        return arg  # only the folder's own name leads back into it
    if not candidate.exists():
        return arg
    here = Path(os.path.abspath("."))
    rel = os.path.relpath(candidate, here)
    return rel + sep + node
