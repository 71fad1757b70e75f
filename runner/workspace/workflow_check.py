"""The one entry to the whole-workflow check (`manifest.check_workflow`): the CLI, the fixture
loader, the server's runs and the editor's diagnostics all come through here, so what a
workflow check means (which reader, whether step files are validated) is decided once."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from stepsmith.runner import manifest as manifests
from stepsmith.runner.pythons import resolve


def workflow_check(manifest: str | os.PathLike, read_text: Callable[[Path], str | None] | None = None,
                   *, validate_steps: bool = True, known=None):
    """The WorkflowCheck of `manifest`: read through `read_text` (open buffers) or the disk
    (bounded safe reads); `validate_steps=False` for the editor, which validates each step
    file once on its own text (runner.workspace.diagnostics). The `python:` pin is resolved
    here (runner/pythons: the settings found from the workflow's folder, PATH, uv, pyenv):
    the check's `interpreter` is the one its steps are checked and run on, SM501 when there
    is none."""

    folder = Path(manifest).parent
    return manifests.check_workflow(Path(manifest), read_text, validate_steps=validate_steps,
                                    known=known, python_for=lambda pin: resolve(pin, folder))
