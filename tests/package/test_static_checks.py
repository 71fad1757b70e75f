"""The static checks of scripts/test can fail. The import contracts ([tool.importlinter],
scripts/lint-imports): on a copy of the tree, one planted import (inside a function, where
grimp reads it too) breaks exactly the contract it violates, and the report names it;
every part of the runner has a layer. The type checker ([tool.mypy], scripts/typecheck): a
planted type error fails it."""

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
    for script in ("lint-imports", "one-package-tree"):
        shutil.copy2(REPO / "scripts" / script, copy / "scripts")
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
    # the settings are plain data below the interpreters' lookup and the sandbox, which read
    # them: converting into either's types again would close the cycle through the harness
    ("runner/settings.py", "from stepsmith.runner.pythons.discover import Mapped",
     "layers: each imports only the layers below it BROKEN",
     "stepsmith.runner.settings -> stepsmith.runner.pythons.discover"),
    ("runner/settings.py", "from stepsmith.runner.sandbox import Limits",
     "layers: each imports only the layers below it BROKEN",
     "stepsmith.runner.settings -> stepsmith.runner.sandbox"),
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


def test_every_part_of_the_runner_has_its_layer():
    # a module outside every layer would be free to import anything
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["id"] == "layers")["layers"]
    placed = {name.strip() for layer in layers for name in layer.replace(":", "|").split("|")}
    parts = {f"stepsmith.runner.{p.stem}" for p in (REPO / "runner").iterdir()
             if p.suffix == ".py" and p.stem != "__init__"
             or p.is_dir() and (p / "__init__.py").exists()}
    assert "stepsmith.runner.app" in parts and "stepsmith.runner.problems" in parts
    assert parts - placed == set()


def test_the_type_checker_fails_on_a_planted_error(tree):
    for script in ("typecheck",):
        shutil.copy2(REPO / "scripts" / script, tree / "scripts")
    module = "runner/app/shapes.py"
    original = (tree / module).read_text()
    env = {"PATH": "/usr/bin:/bin", "STEPSMITH_VENV": sys.prefix, "HOME": str(tree)}
    clean = subprocess.run([str(tree / "scripts" / "typecheck")], env=env, capture_output=True,
                           text=True, timeout=600, check=False)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    (tree / module).write_text(original + '\n\nPLANTED: int = "not a number"\n')
    try:
        run = subprocess.run([str(tree / "scripts" / "typecheck")], env=env,
                             capture_output=True, text=True, timeout=600, check=False)
    finally:
        (tree / module).write_text(original)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "stepsmith/runner/app/shapes.py" in run.stdout
    assert '"str", variable has type "int"' in run.stdout
