"""`pytest --stepsmith PATH` over workflows pinned to 3.11 and 3.13: each fixture an item run
on its own interpreter, one pytest session; a version that is not installed fails its items
with the clear stop. Real pytest in a subprocess, real sandboxes."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pythons_kit import ADA, isolated_env, workflow

pytestmark = pytest.mark.usefixtures("sandbox")

OLD_SYNTAX = '''\
def label(record):
    tags = ", ".join(record["tags"])
    return "%s (%s): %s" % (record["name"], tags, record["x"] * 2.0 + 1.0)
'''


def pytest_run(cwd, env, *args):
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p",
                        "stepsmith.runner.pytest_plugin", *args], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=300, check=False)
    return p.returncode, p.stdout + p.stderr


def test_mixed_pins_in_one_pytest_session(tmp_path, py313):
    workflow(tmp_path, "a311", "3.11", OLD_SYNTAX, fixtures=ADA)
    workflow(tmp_path, "b313", "3.13", fixtures=ADA)
    env = isolated_env(tmp_path, STEPSMITH_PYTHONS=f"3.13={py313}",
                       PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    rc, out = pytest_run(tmp_path, env, "--stepsmith", ".", "-v")
    assert rc == 0, out
    assert "a311::one::ada PASSED" in out and "b313::one::ada PASSED" in out, out
    assert "2 passed" in out


def test_a_missing_version_fails_its_items_with_the_clear_stop(tmp_path):
    workflow(tmp_path, "b313", "3.13", fixtures=ADA)
    env = isolated_env(tmp_path, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    rc, out = pytest_run(tmp_path, env, "--stepsmith", ".")
    assert rc == 1 and "SM501" in out and "uv python install 3.13" in out, out
