"""The runtime identity really hashes the harness source (issue 18 item 5): an identity that
stopped hashing it passed every test that only looked at its key names and hash length.

Each test computes the identity of a COPY of the runner's sandboxed code (harness, sandbox,
validator, rules, problems.py) with one file changed; the unchanged copy must give exactly
this runtime's identity (so the copy stands for the installed tree), and a changed one must
not. A result stored under another identity is then refused, visibly, by the CLI."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import contextmanager
from pathlib import Path

import pytest
from stepsmith.runner import harness, sandbox
from stepsmith.runner.cli import main
from stepsmith.runner.store import ResultStore, store_path
from stepsmith.runner.store import identity as store_identity

RUNNER = Path(harness.__file__).resolve().parent.parent
COPIED = ("harness", "sandbox", "validator", "rules", "problems.py")
#: every file whose change must change the identity: each part of the harness that runs in
#: the sandbox (and its bootstrap), the validator that decides a step may run, the sandbox's
#: own parent side
CHANGED = ("harness/__init__.py", "harness/build.py", "harness/inside.py", "harness/encode.py",
           "harness/restricted.py", "harness/codecheck.py", "harness/facades.py",
           "harness/tracer.py", "validator/engine.py", "validator/policy.py",
           "validator/checks/imports.py", "rules/step_rules.py", "problems.py",
           "sandbox/__init__.py", "sandbox/cmdline.py", "sandbox/seccomp.py",
           "sandbox/redact.py", "sandbox/interpret.py")


def _copy(dest: Path) -> Path:
    root = dest / "runner"
    root.mkdir(parents=True)
    for name in COPIED:
        src = RUNNER / name
        if src.is_dir():
            shutil.copytree(src, root / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, root / name)
    return root


@contextmanager
def runtime_of(root: Path):
    """This process's runtime, loading its sandboxed code from `root` (a copy of runner/)."""
    mp = pytest.MonkeyPatch()
    mp.setattr(harness, "_HERE", root / "harness")
    mp.setattr(harness, "_RUNNER", root)
    mp.setattr(sandbox, "__file__", str(root / "sandbox" / "__init__.py"))
    mp.setattr(store_identity, "_cached", {})
    harness.reset_cache()
    try:
        yield
    finally:
        mp.undo()
        harness.reset_cache()
        store_identity._cached = {}


def identity_of(root: Path) -> dict:
    with runtime_of(root):
        return sandbox.runtime_identity()


@pytest.fixture(scope="module")
def original():
    harness.reset_cache()
    return sandbox.runtime_identity()


def test_an_unchanged_copy_has_this_runtimes_identity(tmp_path, original):
    assert identity_of(_copy(tmp_path)) == original
    assert store_identity.runtime_identity().to_json() == original


@pytest.mark.parametrize("name", CHANGED)
def test_changing_any_harness_source_file_changes_the_identity(tmp_path, original, name):
    root = _copy(tmp_path)
    path = root / name
    assert path.is_file(), f"{name} moved: update CHANGED"
    path.write_bytes(path.read_bytes() + b"\n# one changed comment\n")
    changed = identity_of(root)
    assert changed["harness_source_sha256"] != original["harness_source_sha256"], name
    assert {k: v for k, v in changed.items() if k != "harness_source_sha256"} == {
        k: v for k, v in original.items() if k != "harness_source_sha256"}


def test_the_identity_is_of_the_content_not_of_the_files_times(tmp_path, original):
    root = _copy(tmp_path)
    path = root / "harness" / "inside.py"
    path.write_bytes(path.read_bytes())  # new mtime, same bytes
    assert identity_of(root) == original


@pytest.mark.usefixtures("sandbox")
def test_a_result_stored_by_another_harness_is_refused_visibly(tmp_path, kit, capsys):
    """A run accepted by a runtime whose harness source differed (a comment, here) is never
    reused by this one: run-workflow and replay stop, name the field and both hashes."""
    root = _copy(tmp_path / "other")
    inside = root / "harness" / "inside.py"
    inside.write_bytes(inside.read_bytes() + b"\n# an older harness\n")
    wf = kit.run_workflow_dir(tmp_path / "wf")
    with runtime_of(root):
        other = sandbox.runtime_identity()
        assert main(["run-workflow", str(wf), "--case", "day1"]) == 0
    capsys.readouterr()
    this = store_identity.runtime_identity()
    assert this.harness_source_sha256 != other["harness_source_sha256"]
    with ResultStore.for_workflow(wf) as st:
        stored = st.run_rows("demo", 1, "day1")
    assert stored and {r.identity.harness_source_sha256 for r in stored} == {
        other["harness_source_sha256"]}
    assert all(r.authentic for r in stored)  # a genuine row of this user: only the identity
    before = sqlite3.connect(store_path(wf)).execute("SELECT count(*) FROM accepted").fetchone()
    code = main(["run-workflow", str(wf), "--case", "day1"])
    out, err = capsys.readouterr()
    assert code == 1
    # both identities named, as 12-digit prefixes (issue 20: no two 64-hex numbers to compare)
    assert ("produced by a different runtime (harness_source_sha256: stored "
            f"{other['harness_source_sha256'][:12]}…, this runtime "
            f"{this.harness_source_sha256[:12]}…)") in " ".join((out + err).split())
    assert "✓ accepted" not in out
    code = main(["replay", "day1", str(wf)])
    out, err = capsys.readouterr()
    assert code == 1 and "different runtime" in out + err
    after = sqlite3.connect(store_path(wf)).execute("SELECT count(*) FROM accepted").fetchone()
    assert after == before  # neither reused nor overwritten
