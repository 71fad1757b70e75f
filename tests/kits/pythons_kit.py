"""Real interpreters for the pinned-Python tests: 3.11 is the one the suite runs on, 3.13 the
CPython scripts/setup-pythons builds (Debian trixie's python3.13 source) into the cache folder,
or $STEPSMITH_TEST_PYTHON313. Nothing here stands in for an interpreter."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

RUNNING = f"{sys.version_info[0]}.{sys.version_info[1]}"
# The environment as the session started: the session-wide `py313` may first be asked for
# inside a test that points XDG_CACHE_HOME at a folder of its own (the mutants suites do).
_STARTED_WITH = dict(os.environ)


def built_313(environ: dict[str, str] = _STARTED_WITH) -> Path:
    given = environ.get("STEPSMITH_TEST_PYTHON313")
    if given:
        return Path(given)
    cache = environ.get("STEPSMITH_PYTHONS_CACHE") or os.path.join(
        environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "stepsmith",
        "pythons")
    return Path(cache) / "3.13" / "bin" / "python3.13"


@pytest.fixture(scope="session")
def py313() -> str:
    exe = built_313()
    if not (exe.is_file() and os.access(exe, os.X_OK)):
        pytest.fail(f"no Python 3.13 at {exe}: run scripts/setup-pythons (scripts/setup does)")
    assert RUNNING == "3.11", "the suite pairs the running 3.11 with the built 3.13"
    return str(exe)


def isolated_env(tmp: Path, **extra: str) -> dict[str, str]:
    """An environment where only what a test names is found: no pyenv, no uv, a PATH of the
    system folders (Debian's has no python3.13), no inherited $STEPSMITH_PYTHONS."""
    env = {k: v for k, v in os.environ.items() if k != "STEPSMITH_PYTHONS"}
    env.update(PATH="/usr/bin:/bin", PYENV_ROOT=str(tmp / "no-pyenv"),
               UV_PYTHON_INSTALL_DIR=str(tmp / "no-uv"))
    env.update(extra)
    return env


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """The same environment for this process (discovery in-process), answers forgotten."""
    from stepsmith.runner import pythons, settings

    monkeypatch.setattr(settings, "_active", None)  # an earlier in-process command's
    monkeypatch.setattr(settings, "_project_pythons", True)
    for key, value in isolated_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("STEPSMITH_PYTHONS", raising=False)
    pythons.forget()
    yield tmp_path
    pythons.forget()


# f-strings nesting the quotes that delimit them (PEP 701, Python 3.12+), and a comment and a
# backslash inside a replacement field: one step, two pins
NEW_SYNTAX = '''\
import math


def label(record):
    tags = ", ".join(record["tags"])
    return f"{record["name"]} ({tags}): {math.fma(record["x"], 2.0, 1.0)}"
'''
NEW_SYNTAX_LINE = 6  # the f-string nesting its quotes


def workflow(root: Path, name: str, pin: str, code: str = NEW_SYNTAX, *, function: str = "label",
             inputs: dict | None = None, fixtures: dict | None = None) -> Path:
    """A one-step workflow `name` pinned to `pin` under `root`, with its fixtures
    ({case: fixture document})."""
    folder = root / name
    (folder / "steps").mkdir(parents=True)
    (folder / "steps" / "step.py").write_text(textwrap.dedent(code))
    manifest = {"workflow": name, "version": 1, "python": pin, "trigger": {"manual": {}},
                "steps": [{"id": "one", "explanation": "Label the record.",
                           "code": f"steps/step.py:{function}",
                           "inputs": inputs or {"record": {"name": "Ada", "tags": ["a"],
                                                           "x": 1.5}}}]}
    (folder / "workflow.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    for case, doc in (fixtures or {}).items():
        path = folder / "fixtures" / "one" / f"{case}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        import json

        path.write_text(json.dumps(doc))
    return folder


ADA = {"ada": {"inputs": {"record": {"name": "Ada", "tags": ["a", "b"], "x": 1.5}},
               "expected": {"output": "Ada (a, b): 4.0"}}}
