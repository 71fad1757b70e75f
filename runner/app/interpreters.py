"""Which interpreter each workflow's steps are checked and run on: the one answer the CLI
(`stepsmith python`, `reach`), the language server (hovers, the status bar) and MCP render.

A workflow's pin is read leniently (a manifest with other problems still says which Python it
pins) and resolved as its check resolves it (runner/pythons.resolve, the settings found from
its folder).
"""

from __future__ import annotations

from pathlib import Path

from stepsmith.runner.manifest import parse_manifest
from stepsmith.runner.manifest.workflow_checks import read_manifest_text
from stepsmith.runner.pythons import PythonNotFound, resolve
from stepsmith.runner.pythons.report import WorkflowPython

__all__ = ["WorkflowPython", "of_check", "pin_of", "workflow_python"]


def pin_of(manifest: Path, text: str | None = None) -> str | None:
    """The manifest's `python:` as written (a string), read leniently."""

    if text is None:
        text, _ = read_manifest_text(manifest)
    if text is None:
        return None
    data = parse_manifest(text, str(manifest)).data
    pin = data.get("python") if isinstance(data, dict) else None
    return pin if isinstance(pin, str) else None


def workflow_python(manifest: Path, pin: str | None = None, *, text: str | None = None
                    ) -> WorkflowPython:
    """What `manifest`'s pin names here (`pin` when the caller has read it already)."""

    manifest = Path(manifest)
    pin = pin if pin is not None else pin_of(manifest, text)
    if pin is None:
        return WorkflowPython(manifest, None)
    try:
        return WorkflowPython(manifest, pin, resolve(pin, manifest.parent))
    except PythonNotFound as exc:
        return WorkflowPython(manifest, pin, problem=exc.message)


def of_check(check, manifest: Path) -> WorkflowPython:
    """From a workflow check made already (it resolved the pin)."""
    data = getattr(check.manifest.root, "data", None)
    pin = data.get("python") if isinstance(data, dict) else None
    if not isinstance(pin, str):
        return WorkflowPython(Path(manifest), None)
    interp = getattr(check, "interpreter", None)
    if interp is not None:
        return WorkflowPython(Path(manifest), pin, interp)
    return workflow_python(Path(manifest), pin)
