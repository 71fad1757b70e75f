"""The import contracts ([tool.importlinter], checked by scripts/lint-imports in scripts/test)
can fail: on a copy of the tree, one planted import (inside a function, where a third of our
imports live) breaks exactly the contract it violates, and the report names it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "STEPSMITH_VENV": sys.prefix, "NO_COLOR": "1"}
    return subprocess.run([str(tree / "scripts" / "lint-imports")], env=env, capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("tree")
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("stepsmith", "runner", "server"):
        shutil.copytree(REPO / folder, copy / folder, ignore=skip)
    (copy / "scripts").mkdir()
    shutil.copy2(REPO / "scripts" / "lint-imports", copy / "scripts")
    shutil.copy2(REPO / "pyproject.toml", copy)
    return copy


def plant(tree: Path, module: str, statement: str) -> None:
    path = tree / module
    path.write_text(path.read_text() + f"\n\ndef _planted():\n    {statement}\n")


def test_the_tree_keeps_every_contract(tree):
    run = lint(tree)
    assert run.returncode == 0, run.stdout + run.stderr
    for name in ("layers:", "front ends never import", "no package cycle"):
        assert any(name in line and "KEPT" in line for line in run.stdout.splitlines()), name


@pytest.mark.parametrize(("module", "statement", "broken", "named"), [
    # the base importing a use case
    ("runner/problems.py", "import stepsmith.runner.app.check",
     "layers: each imports only the layers below it BROKEN",
     "stepsmith.runner.problems -> stepsmith.runner.app.check"),
    # one front end importing another
    ("runner/pytest_plugin.py", "from stepsmith.runner.cli import errors",
     "front ends never import one another BROKEN",
     "stepsmith.runner.pytest_plugin -> stepsmith.runner.cli.errors"),
    # the server's handlers importing the server that registers them: a cycle of packages
    ("server/handlers/hover.py", "from stepsmith.server import server",
     "no package cycle BROKEN", "No cycles are allowed in stepsmith.server."),
])
def test_a_planted_import_breaks_its_contract(tree, module, statement, broken, named):
    original = (tree / module).read_text()
    plant(tree, module, statement)
    try:
        run = lint(tree)
    finally:
        (tree / module).write_text(original)
    out = " ".join(run.stdout.split())  # the report wraps long lines
    assert run.returncode == 1, run.stdout + run.stderr
    assert broken in out
    assert named in out
