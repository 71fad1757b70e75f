"""`stepsmith reach --diff REV`: what a change widens, per workflow and per step.

`reach_diff(path, rev)` reads every manifest under `path` in the work tree and at `rev` (with
git itself, nothing checked out), pairs them by path and then by workflow slug (a moved
manifest), and compares each pair's reach (`compare.py`). A manifest that does not parse on
either side is reported as `unreadable`, never crashed on.
"""

from __future__ import annotations

from pathlib import Path

from stepsmith.runner.manifest import parse_manifest, read_manifest_text
from stepsmith.runner.workspace.discovery import discover

from .gitrev import GitError, Revision
from .reach_changes import ReachChange, ReachDiff, WorkflowReachDiff, compare_workflows

__all__ = ["GitError", "ReachChange", "ReachDiff", "WorkflowReachDiff", "reach_diff",
           "widened_since", "workflow_at"]


def _parse(text: str | None, where: str):
    """(workflow | None, error | None)."""

    if text is None:
        return None, None
    doc = parse_manifest(text, where)
    if doc.workflow is None:
        first = doc.problems[0] if doc.problems else None
        why = (f"{first.code} at {first.span.line}:{first.span.column + 1}: {first.message}"
               if first else "not a workflow")
        return None, why
    return doc.workflow, None


def _decode(data: bytes | None) -> str | None:
    if data is None:
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", "replace")


def workflow_at(rev: Revision, relpath: str):
    """(workflow | None, error | None, present) of a manifest at a revision."""
    try:
        data = rev.read(relpath)
    except GitError as exc:
        return None, str(exc), True
    if data is None:
        return None, None, False
    wf, err = _parse(_decode(data), f"{rev.rev}:{relpath}")
    return wf, err, True


def _at(rev: Revision, relpath: str) -> bool:
    """Whether `rev` may hold `relpath`: what cannot be read there counts as present, so it is
    reported as unreadable at REV rather than as a new workflow."""
    try:
        return rev.read(relpath) is not None
    except GitError:
        return True


def _workdir_workflow(path: Path):
    text, problems = read_manifest_text(path)
    if text is None:
        p = problems[0] if problems else None
        return None, (f"{p.code}: {p.message}" if p else "cannot read")
    return _parse(text, str(path))


def reach_diff(path: Path, rev: str = "HEAD") -> ReachDiff:
    """Compare every workflow under `path` (or the one `path` lies in) with `rev`."""

    revision = Revision(path, rev)
    now = {revision.relative(f.manifest): f.manifest for f in discover([path])}
    then = set(revision.manifests_under(path)) | {r for r in now if _at(revision, r)}

    before: dict[str, tuple] = {r: workflow_at(revision, r)[:2] for r in sorted(then)}
    after: dict[str, tuple] = {r: _workdir_workflow(p) for r, p in sorted(now.items())}

    pairs: list[tuple[str | None, str | None]] = [(r, r) for r in after if r in before]
    gone = [r for r in before if r not in after]
    came = [r for r in after if r not in before]
    # a moved manifest: the same workflow slug on both sides
    slug_of = {r: before[r][0].workflow for r in gone if before[r][0] is not None}
    for r in list(came):
        wf = after[r][0]
        match = next((g for g in gone if wf is not None and slug_of.get(g) == wf.workflow), None)
        if match is not None:
            pairs.append((match, r))
            gone.remove(match)
            came.remove(r)
    pairs += [(None, r) for r in came] + [(r, None) for r in gone]

    out = []
    for b, a in sorted(pairs, key=lambda p: p[1] or p[0] or ""):
        wf_b, err_b = before[b] if b else (None, None)
        wf_a, err_a = after[a] if a else (None, None)
        name = (wf_a or wf_b).workflow if (wf_a or wf_b) else Path(a or b or "").parent.name
        shown = a or b or ""
        vb = wf_b.version if wf_b is not None else None
        va = wf_a.version if wf_a is not None else None
        if err_b or err_a:
            why = "; ".join(x for x in (f"at {rev}: {err_b}" if err_b else "",
                                        f"in the work tree: {err_a}" if err_a else "") if x)
            # what cannot be read at REV is compared as absent: every step reaching something
            # counts as new, so an unreadable base can never hide a widening
            changes = tuple(compare_workflows(None, wf_a)) if wf_a is not None else ()
            out.append(WorkflowReachDiff(name, shown, b, "unreadable", changes, error=why,
                                         version_before=vb, version_after=va))
            continue
        changes = tuple(compare_workflows(wf_b, wf_a))
        status = ("added" if b is None else "removed" if a is None
                  else "changed" if changes or b != a else "unchanged")
        out.append(WorkflowReachDiff(name, shown, b, status, changes, version_before=vb,
                                     version_after=va))
    return ReachDiff(rev, tuple(out), str(revision.top))


_BEFORE_CACHE: dict[tuple[str, str], tuple] = {}  # (commit, repo-relative manifest) -> before
_CACHE_MAX = 256


def widened_since(manifest: str | Path, workflow_after, rev: str = "HEAD"):
    """What `workflow_after` (e.g. an editor's unsaved manifest) changes in reach since `rev`:
    (status, changes), status "unchanged" | "changed" | "added" | "unreadable"; None when the
    manifest is not in a git repository (or git is missing). The manifest at a commit never
    changes, so it is parsed once per commit."""
    try:
        revision = Revision(Path(manifest), rev)
        rel = revision.relative(Path(manifest))
    except GitError:
        return None
    key = (revision.commit, rel)
    if key not in _BEFORE_CACHE:
        if len(_BEFORE_CACHE) >= _CACHE_MAX:
            _BEFORE_CACHE.pop(next(iter(_BEFORE_CACHE)))
        _BEFORE_CACHE[key] = workflow_at(revision, rel)
    before, err, present = _BEFORE_CACHE[key]
    if not present:
        return "added", tuple(compare_workflows(None, workflow_after))
    if err:
        return "unreadable", tuple(compare_workflows(None, workflow_after))
    changes = tuple(compare_workflows(before, workflow_after))
    return ("changed" if changes else "unchanged"), changes
