"""What each step is permitted to reach, for every workflow under some paths: one typed
`ReachReport` with one JSON shape, rendered by `stepsmith reach`, MCP `reach`, the agent tool
and the language server's `stepsmith/reach`.

A workflow's entry holds every step's record (`runner/reach.StepReach`: network, connections,
sources with where each comes from, effects with their target, explanation), the interpreter
its steps are checked and run on, and why it cannot be read when it cannot. The report is read
from the disk (`reach_report`) or from the editor's buffers (`snapshot_report`): the same
records either way, built from the manifest alone (declared permissions, never the code).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from stepsmith.runner.app.interpreters import workflow_python
from stepsmith.runner.manifest import parse_manifest, read_manifest_text
from stepsmith.runner.problems import Problem, Span
from stepsmith.runner.pythons.report import WorkflowPython
from stepsmith.runner.reach import REACH_SENTENCE, StepReach, reach_rows
from stepsmith.runner.workspace.discovery import discover


@dataclass(frozen=True)
class WorkflowReach:
    manifest: Path
    workflow: str | None  # the slug (read leniently when the manifest is not a workflow)
    version: int | None
    python: WorkflowPython  # the pin and the interpreter it names here
    steps: tuple[StepReach, ...] = ()  # every step, in manifest order
    problems: tuple[Problem, ...] = ()  # the manifest's own problems (`stepsmith check`)
    error: str | None = None  # why it cannot be read as a workflow (then no steps)

    def to_json(self, shown: Callable[[Path], str] = str) -> dict:
        python = self.python.to_json()
        python.pop("manifest")
        return {"manifest": shown(self.manifest), "workflow": self.workflow,
                "version": self.version, "python": python, "problems": len(self.problems),
                "error": self.error, "steps": [s.to_json() for s in self.steps]}


@dataclass(frozen=True)
class ReachReport:
    workflows: tuple[WorkflowReach, ...]
    sentence: str = REACH_SENTENCE  # what the report is, and what it is not

    @property
    def unreadable(self) -> tuple[WorkflowReach, ...]:
        return tuple(w for w in self.workflows if w.error is not None)

    def to_json(self, shown: Callable[[Path], str] = str) -> dict:
        """The one JSON shape (runner/app/shapes.py declares it): `stepsmith reach --format
        json`, MCP `reach`, and the language server's answer (which adds URIs and ranges)."""
        return {"sentence": self.sentence,
                "workflows": [w.to_json(shown) for w in self.workflows]}


def why_unreadable(problems: Sequence[Problem]) -> str:
    """The first problem, positioned: "SM005 at 2:10: version must be an integer"."""
    if not problems:
        return "not a workflow"
    p = problems[0]
    return f"{p.code} at {p.span.line}:{p.span.column + 1}: {p.message}"


def workflow_reach(manifest: Path, doc, python: WorkflowPython,
                   read_problems: Sequence[Problem] = ()) -> WorkflowReach:
    """One workflow's entry from its parsed manifest (`doc`; None when it could not be read,
    `read_problems` saying why)."""
    if doc is None or doc.workflow is None:
        problems = tuple(read_problems) if doc is None else tuple(doc.problems)
        data = getattr(doc, "data", None)
        name = data.get("workflow") if isinstance(data, dict) else None
        return WorkflowReach(manifest, name if isinstance(name, str) else None, None, python,
                             problems=problems, error=why_unreadable(problems))
    wf = doc.workflow
    return WorkflowReach(manifest, wf.workflow, wf.version, python, tuple(reach_rows(wf)),
                         tuple(doc.problems))


def manifests_under(path: Path) -> list[Path]:
    """A manifest as given; a folder through the one discovery (the workflows below it, else
    the one it lies in, found upward)."""

    if path.is_file() and path.suffix.lower() in (".yaml", ".yml"):
        return [path]
    return [f.manifest for f in discover([path])]


def reach_report(paths: Iterable[Path]) -> ReachReport:
    """Every workflow under `paths`, read from the disk (the interpreter resolved as its check
    resolves it)."""

    out: list[WorkflowReach] = []
    seen: set[Path] = set()
    for path in paths:
        for m in manifests_under(Path(path)):
            if m.resolve() in seen:
                continue
            seen.add(m.resolve())
            text, problems = read_manifest_text(m)
            doc = parse_manifest(text, str(m)) if text is not None else None
            out.append(workflow_reach(m, doc, _python(m, doc), problems))
    return ReachReport(tuple(out))


def snapshot_report(snapshot, path: str | None = None) -> ReachReport:
    """The workflows `path` belongs to (every known one without it), as the editor has them:
    open buffers over the disk, the interpreter the last check of each found."""
    out = []
    for entry in snapshot.index.manifests_for(path):
        doc = snapshot.manifest_doc(entry.path)
        python = entry.python_report()
        if python is None:  # not checked yet: resolved as its check will
            python = _python(Path(entry.path), doc)
        read = () if doc is not None else (_unreadable(entry.path),)
        out.append(workflow_reach(Path(entry.path), doc, python, read))
    return ReachReport(tuple(out))


def _python(manifest: Path, doc) -> WorkflowPython:
    """The manifest's `python:` pin (read leniently) and what it names here."""

    data = getattr(doc, "data", None)
    pin = data.get("python") if isinstance(data, dict) else None
    if not isinstance(pin, str):
        return WorkflowPython(manifest, None)
    return workflow_python(manifest, pin)


def _unreadable(path: str) -> Problem:
    return Problem(code="SM006", message="cannot read manifest", span=Span(1, 0, 1, 1),
                   path=path)
