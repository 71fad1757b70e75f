"""One workflow's `check` answer as JSON data (what the check cache keeps), whole or with its
step-file-free part taken from the cache.

That part (`facts`): the manifest's own problems (YAML, schema, cross references), its
fixtures' findings (SF002-SF008) and the stale wired fixtures (SF001). None of it reads a
step file, so when a step file alone changed it is taken from the cache, keyed by the bytes
of the manifest and the fixtures (check_cache.facts_key), and only the step files are
checked again (code files, signatures, the validator): the manifest is not validated by the
model, so pydantic is not imported, as ruff re-checks the one file that changed.
tests/cli/test_check_partial_cache.py holds the partial answer equal to a fresh check.
"""

from __future__ import annotations

import os
from pathlib import Path


def check_unit(manifest: Path, facts: dict | None = None) -> dict:
    """Everything `check` reports for one workflow: problems by file (manifest, step files,
    fixtures), the step files and which steps run each function, the stale wired fixtures
    (SF001 warnings), and `facts`, the part a later check may take as it is."""
    from stepsmith.runner.app.check_cache import problem_from_json
    from stepsmith.runner.problem_steps import step_ids_by_function
    from stepsmith.runner.workspace.workflow_check import workflow_check

    if facts is not None:
        wc = workflow_check(manifest, known=[problem_from_json(d) for d in facts["manifest"]])
        fixture_found = [(Path(p), [problem_from_json(d) for d in ds])
                         for p, ds in facts["fixtures"]]
        # a workflow with errors loads no fixture, so it has no stale one (as a whole check)
        if not facts["model"] or _has_errors(wc):
            stale = []
        elif facts["stale"] is not None:
            stale = facts["stale"]
        else:  # cached while the workflow had errors: its stale fixtures were never looked at
            return check_unit(manifest)
        model_ok, stale_if_ok = facts["model"], facts["stale"]
    else:
        wc = workflow_check(manifest)
        fixture_found, stale = fixture_side(manifest, wc)
        model_ok = wc.manifest.workflow is not None
        stale_if_ok = stale if model_ok and not _has_errors(wc) else None
    found = [*wc.problems.items(), *fixture_found]
    return {"problems": _problems_json(found), "python": python_key(wc),
            "step_files": [str(Path(p).resolve()) for p in wc.step_files],
            "steps_of": [[str(p), f, ids] for (p, f), ids in
                         step_ids_by_function(wc.step_files).items()],
            "stale": stale,
            "facts": {"manifest": [p.to_json() for p in wc.manifest.problems],
                      "fixtures": _problems_json(fixture_found), "model": model_ok,
                      "stale": stale_if_ok}}


def _interpreter_key(interp) -> str | None:
    return None if interp is None else f"{interp.exe}\0{interp.build}"


def python_key(wc) -> list | None:
    """[pin, the interpreter it named] of a check: the answer holds only while the pin still
    names that interpreter (one installed, removed or mapped since changes the grammar the
    step files were checked with, and SM501)."""
    data = getattr(wc.manifest.root, "data", None)
    pin = data.get("python") if isinstance(data, dict) else None
    return [pin, _interpreter_key(wc.interpreter)] if isinstance(pin, str) else None


def python_unchanged(unit: dict, manifest: Path) -> bool:
    """Whether a cached answer's pin still names the interpreter it was checked with."""
    from stepsmith.runner.pythons import PythonNotFound, resolve

    if "python" not in unit:
        return False
    key = unit["python"]
    if key is None:
        return True
    try:
        pin, was = key
        now = _interpreter_key(resolve(pin, manifest.parent))
    except PythonNotFound:
        now = None
    except (TypeError, ValueError):
        return False
    return now == was


def _has_errors(wc) -> bool:
    from stepsmith.runner.problems import errors_by_path

    return bool(errors_by_path(wc.problems))


def fixture_side(manifest: Path, wc, read_text=None) -> tuple[list, list]:
    """(fixture findings by file, stale wired fixtures as JSON) of a whole check; the stale
    ones only while the workflow has no error (the rule the cached part keeps: a step file's
    error may block the fixtures an SF001 compares). `read_text`: open buffers before the
    disk, for the findings of each file (SF002-SF009); SF001 compares the saved files."""
    import dataclasses

    from stepsmith.runner.app.suite import base_for, workflow_cases
    from stepsmith.runner.app.workflow import loaded_workflow
    from stepsmith.runner.fixtures.lint import check_fixtures
    from stepsmith.runner.fixtures.stale import stale_fixtures

    # fixtures are part of the workflow: SF002-SF008 with positions
    fixture_found = list(check_fixtures(manifest, wc.manifest.workflow, read_text).items())
    if wc.manifest.workflow is None or _has_errors(wc):
        return fixture_found, []
    try:
        lw = loaded_workflow(manifest.resolve(), wc, base_for(manifest))
        stale = [dataclasses.asdict(s) for s in stale_fixtures(workflow_cases(lw))]
    except Exception:  # noqa: BLE001  the workflow's own problems say what is wrong
        stale = []
    return fixture_found, stale


def _problems_json(found) -> list:
    # a symlink is named as itself (check refuses it), never by where it points
    return [[str(Path(p).parent.resolve() / Path(p).name if os.path.islink(p)
                 else Path(p).resolve()), [pr.to_json() for pr in probs]] for p, probs in found]
