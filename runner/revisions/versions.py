"""Immutable versions: `stepsmith check --base REV`.

The engine saves each workflow as an immutable version. A workflow whose manifest or any step
file it uses (at REV or now) changed since REV must carry a higher `version:` (SM401, a
warning: the author may bump it in a later commit of the same pull request); a lower one is an
error (SM402). A workflow that did not exist at REV, or does not parse on either side, is left
to the other checks; one that cannot be read at REV (a partial clone's missing object) is a
GitError: the command fails rather than pass what it could not compare.
"""

from __future__ import annotations

from pathlib import Path

from stepsmith.runner import safeio
from stepsmith.runner.manifest import parse_manifest, read_manifest_text
from stepsmith.runner.problems import Problem, Severity, Span
from stepsmith.runner.rules.manifest_rules import rationale

from . import _decode, _parse
from .gitrev import Revision


def _step_paths(workflow) -> set[str]:
    return {s.code_ref.path for s in workflow.steps if s.code_ref is not None}


def _changed(rev: Revision, folder_rel: str, folder: Path, rel_files: set[str]) -> list[str]:
    """The files among `rel_files` (relative to the workflow folder) whose bytes differ from
    REV (added or removed count as changed)."""

    out = []
    for rel in sorted(rel_files):
        then = rev.read(f"{folder_rel}/{rel}" if folder_rel != "." else rel)
        try:
            now = safeio.read_bytes(folder / rel, root=folder, cap=safeio.STEP_FILE_CAP * 16)
        except OSError:
            now = None
        if then != now:
            out.append(rel)
    return out


def version_problems(manifest: Path, rev: Revision) -> list[Problem]:
    rel = rev.relative(manifest)
    # GitError when the manifest cannot be read at REV: the check cannot say, so it fails
    before, _err = _parse(_decode(rev.read(rel)), f"{rev.rev}:{rel}")
    if before is None:
        return []
    text, _problems = read_manifest_text(manifest)
    doc = parse_manifest(text, str(manifest)) if text is not None else None
    if doc is None or doc.workflow is None:
        return []
    after = doc.workflow
    span = doc.locate(("version",)) or Span(1, 0, 1, 1)
    if after.version < before.version:
        return [Problem("SM402", f"`version:` went down from {before.version} (at {rev.rev}) to "
                        f"{after.version}; versions only go up", span, path=str(manifest),
                        rationale=rationale("SM402"))]
    if after.version > before.version:
        return []
    folder = manifest.parent
    folder_rel = str(Path(rel).parent.as_posix())
    files = {manifest.name} | _step_paths(before) | _step_paths(after)
    changed = _changed(rev, folder_rel, folder, files)
    if not changed:
        return []
    shown = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more" if len(changed) > 4 else "")
    return [Problem("SM401", f"changed since {rev.rev} ({shown}) but `version:` is still "
                    f"{after.version}; increase it to {after.version + 1}", span,
                    path=str(manifest), rationale=rationale("SM401"), severity=Severity.WARNING)]
