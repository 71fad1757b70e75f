"""`check` as one use case: the problems of the workflows (and step files) under some paths,
as one typed `CheckReport`, which every front end renders (the CLI's formats, MCP's and the
agent tools' `check`) and whose per-file part the editor publishes (`file_problems`).

Paths: a folder (the manifests found below it), a manifest (or any YAML file named), or a
step `.py` file or a folder inside a workflow (the workflows in the nearest folder above it
holding a manifest); a `.py` file no manifest names is validated on its own, with no reach.
Each workflow's answer is `check_units.check_unit`, taken from the check cache
(`check_cache.py`) while none of its files changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from stepsmith.runner.app.check_units import check_unit, python_unchanged
from stepsmith.runner.errors import UsageError
from stepsmith.runner.problems import Problem, Span, shifted


@dataclass(frozen=True)
class CheckReport:
    """What `check` found. `problems`: by file (resolved path), every file checked listed,
    a clean one with none; `steps_of`: the step ids running each (step file, function);
    `stale`: the stale wired fixtures (SF001 warnings, `fixtures.stale.StaleFixture`), which
    the report also lists among the problems of their files (`by_file`)."""

    problems: dict[Path, list[Problem]]
    steps_of: dict[tuple[Path, str], list[str]] = field(default_factory=dict)
    stale: list = field(default_factory=list)

    @property
    def files_checked(self) -> int:
        return len(self.problems)

    def by_file(self) -> dict[Path, list[Problem]]:
        """Every finding, the stale fixtures' included, by file, in position order."""
        out = {p: list(probs) for p, probs in self.problems.items()}
        for w in self.stale:
            out.setdefault(Path(w.fixture).resolve(), []).append(w.problem())
        return {p: sorted(probs, key=position) for p, probs in out.items()}


def position(p: Problem) -> tuple:
    return (p.span.line, p.span.column, p.code)


def check(paths: list[str], *, first: bool = False, cache: bool = True,
          base: str | None = None) -> CheckReport:
    """The report for `paths`. `first`: only the first broken rule per step in step code
    (the harness's gate); `cache`: answer unchanged workflows from the check cache; `base`:
    also SM401/SM402 against that git revision (a `revisions.GitError` when git fails).
    Raises UsageError for a file that is none of the things `check` reads."""
    from stepsmith.runner.app import check_cache
    from stepsmith.runner.model.grammar import is_manifest_name
    from stepsmith.runner.workspace.discovery import discover

    cache = cache and check_cache.enabled()
    manifests: list[Path] = []
    py_files: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_file() and not is_manifest_name(p.name) and p.suffix in (".yaml", ".yml"):
            manifests.append(p)  # any YAML file named on the command line is checked as one
            continue
        if p.is_file() and p.suffix != ".py" and not is_manifest_name(p.name):
            raise UsageError(f"{raw}: not a folder, workflow manifest or step .py file")
        if p.suffix == ".py" and p.is_file():
            py_files.append(p)
        manifests.extend(f.manifest for f in discover([p]))

    results: dict[Path, list[Problem]] = {}
    steps_of: dict[tuple[Path, str], list[str]] = {}
    stale: list = []
    step_files: set[Path] = set()
    seen: set[Path] = set()
    seen_problems: dict[Path, set] = {}
    for m in manifests:
        key = m.resolve()
        if key in seen:
            continue
        seen.add(key)
        slot = check_cache.slot(key, first) if cache else None
        unit = check_cache.get(slot)
        if unit is not None and not python_unchanged(unit, key):
            unit = None  # checked with another interpreter than the pin names now
        if unit is None:
            # a step file alone changed: the rest of the answer is the cache's (check_units.py)
            fkey = check_cache.facts_key(slot)
            facts = check_cache.get_facts(fkey)
            unit = check_unit(m, facts)
            found_facts = unit.pop("facts")
            if check_cache.put(slot, unit) and facts is None:
                check_cache.put_facts(fkey, found_facts)
        for path, dicts in unit["problems"]:
            probs = [check_cache.problem_from_json(d) for d in dicts]
            rkey = Path(path)
            if first and rkey != key:
                probs = _first_per_step(probs)
            bucket = results.setdefault(rkey, [])
            seen_in = seen_problems.setdefault(rkey, set())
            for pr in probs:
                if pr not in seen_in:  # a step file shared by two workflows: report once
                    seen_in.add(pr)
                    bucket.append(pr)
        step_files.update(Path(p) for p in unit["step_files"])
        for p, function, ids in unit["steps_of"]:
            have = steps_of.setdefault((Path(p), function), [])
            have.extend(i for i in ids if i not in have)
        if unit["stale"]:
            from stepsmith.runner.fixtures.stale import StaleFixture

            stale.extend(StaleFixture(**d) for d in unit["stale"])
    for py in py_files:
        key = py.resolve()
        if key in step_files or key in results:
            continue
        probs = _validate_alone(py)
        results[key] = _first_per_step(probs) if first else probs
    if base is not None:
        _add_version_problems(paths, base, results)
    return CheckReport(results, steps_of, stale)


def _first_per_step(problems):
    from stepsmith.runner.validator import first_violation_per_step

    return first_violation_per_step(problems)


def _validate_alone(path: Path) -> list[Problem]:
    from stepsmith.runner import safeio

    try:
        data = safeio.read_bytes(path, root=path.parent, cap=safeio.STEP_FILE_CAP)
    except OSError as exc:
        return [Problem(code="SS004", message=f"cannot read file: {exc.strerror or exc}",
                        span=Span(1, 0, 1, 1), path=str(path))]
    try:
        from stepsmith.runner.validator import validate
    except ImportError as exc:
        return [Problem(code="SS003", message=f"step validator unavailable ({exc}); the file was "
                        "not checked", span=Span(1, 0, 1, 1), path=str(path))]
    from stepsmith.runner.fix_safety import vet

    return [shifted(p, 0, path=str(path))
            for p in vet(data, validate(data, python="3.11", uses=()))]


def _add_version_problems(paths, base: str, results: dict[Path, list[Problem]]) -> None:
    """SM401/SM402 for every workflow under `paths` against git revision `base`."""
    from stepsmith.runner.revisions.gitrev import Revision
    from stepsmith.runner.revisions.versions import version_problems
    from stepsmith.runner.workspace.discovery import discover

    rev = None
    for found in discover([Path(p) for p in paths]):
        rev = rev or Revision(found.manifest, base)
        for pr in version_problems(found.manifest, rev):
            results.setdefault(found.manifest.resolve(), []).append(pr)


# --- with fixes -----------------------------------------------------------------------------
@dataclass(frozen=True)
class FixedProblem:
    """A finding with the fixes offered for it, best first (`language.actions` CodeActions:
    title, fix_kind, preferred, changes by path)."""

    path: Path
    problem: Problem
    fixes: list


def with_fixes(report: CheckReport) -> list[FixedProblem]:
    """Every finding of `report` (by path, in position order) with its fixes, as the
    editor's quick fixes offer them, on the files as they are on disk. A fix that must wait
    for another problem's rename is not offered (fix-all's rule), nor one widening what a
    step may reach (a person decides)."""
    from stepsmith.runner.app.fix import disk_snapshot
    from stepsmith.runner.language.actions import fixes_for, quick_fixes
    from stepsmith.runner.language.fixall import deferred
    from stepsmith.runner.workspace.index import norm

    found = report.by_file()
    manifests = sorted({norm(p) for p in report.problems if _is_manifest(p)})
    snap = disk_snapshot(manifests)
    out = []
    for path in sorted(found):
        probs = found[path]
        waiting = deferred([(pr, fixes_for(snap, norm(path), pr)) for pr in probs], unsafe=True)
        for i, pr in enumerate(probs):
            actions = [] if i in waiting else [
                a for a in quick_fixes(snap, norm(path), [pr]) if a.fix_kind != "declare-effect"]
            out.append(FixedProblem(path, pr, actions))
    return out


def _is_manifest(path: Path) -> bool:
    from stepsmith.runner.model.grammar import is_manifest_name

    return is_manifest_name(path.name) or path.suffix in (".yaml", ".yml")


# --- one file, on an editor's buffers -------------------------------------------------------
def fixture_file_problems(snapshot, path: str) -> list[Problem] | None:
    """What `check` reports for the fixture file `path` (a `.json` file in a workflow's
    `fixtures/` folder), on the snapshot's open buffers; None when `path` is no such file.
    The same functions as `check`'s answer (check_units.fixture_side), over every manifest
    of the workflow folder (they share `fixtures/`). SF001 compares saved fixtures: it is
    reported only while the file's buffer is its saved text."""
    from stepsmith.runner.app.check_units import fixture_side
    from stepsmith.runner.fixtures.load import JSON_RULE
    from stepsmith.runner.fixtures.stale import StaleFixture
    from stepsmith.runner.safeio import read_workspace_text
    from stepsmith.runner.workspace.diagnostics import too_large
    from stepsmith.runner.workspace.workflow_check import workflow_check

    manifests = _fixture_owners(snapshot, path)
    if not manifests:
        return None
    buf = snapshot.buffer(path)
    if buf is not None and len(buf.text) > snapshot.max_file_size:
        return [too_large(len(buf.text), snapshot.max_file_size, JSON_RULE)]
    me = Path(path).resolve()
    saved = buf is None or buf.text == read_workspace_text(path)
    out: list[Problem] = []
    for m in manifests:
        wc = workflow_check(m, snapshot.buffer_text)
        found, stale = fixture_side(Path(m), wc, snapshot.buffer_text)
        mine = [pr for f, probs in found if Path(f).resolve() == me for pr in probs]
        if saved:
            mine += [s.problem() for s in (StaleFixture(**d) for d in stale)
                     if Path(s.fixture).resolve() == me]
        out.extend(pr for pr in mine if pr not in out)  # shared fixtures: reported once
    return sorted(out, key=position)


def _fixture_owners(snapshot, path: str) -> list[str]:
    """The manifests of the workflow folder whose `fixtures/` holds `path` (as
    `fixtures/<step>/<case>.json` or, misplaced, `fixtures/<name>.json`), by name."""
    import os

    from stepsmith.runner.model.grammar import FIXTURES_DIR

    if not path.endswith(".json"):
        return []
    parent = os.path.dirname(path)
    if os.path.basename(parent) == FIXTURES_DIR:
        folder = os.path.dirname(parent)
    elif os.path.basename(os.path.dirname(parent)) == FIXTURES_DIR:
        folder = os.path.dirname(os.path.dirname(parent))
    else:
        return []
    return sorted((m for m in snapshot.index.manifests if os.path.dirname(m) == folder),
                  key=os.path.basename)
