"""The plugin's items take part in pytest's own selection: `--lf`, `--ff`, `--sw`,
node ids and fixture paths as plain pytest arguments; `--stepsmith` works as a bare flag
(default: the configured paths, else `.`). Real pytest in a subprocess with its cache."""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.usefixtures("sandbox")


def pytest_run(cwd, *args):
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "stepsmith.runner.pytest_plugin",
                        "-p", "cacheprovider", *args], cwd=cwd, capture_output=True, text=True,
                       timeout=300, check=False, env=env)
    return p.returncode, p.stdout + p.stderr


@pytest.fixture
def failing(tmp_path, kit):
    fx = kit.passing_fixtures()
    fx["add/simple"]["expected"]["output"]["sum"] = "1.5"
    fx["double/from-add"]["expected"]["output"]["twice"] = "9.00"
    kit.full_workflow(tmp_path / "wf", fx)
    return tmp_path


def test_last_failed_reruns_only_the_failures(failing):
    code, out = pytest_run(failing, "--stepsmith", "wf", "-q")
    assert code == 1 and "2 failed, 4 passed, 1 recorded" in out, out
    code, out = pytest_run(failing, "--stepsmith", "wf", "--lf", "-q")
    assert code == 1 and "2 failed, 5 deselected" in out, out
    code, out = pytest_run(failing, "--stepsmith", "wf", "--lf", "-v")
    assert "run-last-failure: rerun previous 2 failures" in out, out


def test_failed_first_orders_the_failures_first(failing):
    pytest_run(failing, "--stepsmith", "wf", "-q")
    code, out = pytest_run(failing, "--stepsmith", "wf", "--ff", "-v")
    lines = [ln.split()[0] for ln in out.splitlines() if ln.startswith("wf::")]
    assert lines[:2] == ["wf::add::simple", "wf::double::from-add"], out
    assert len(lines) == 7


def test_stepwise_stops_then_resumes_at_the_failure(failing):
    code, out = pytest_run(failing, "--stepsmith", "wf", "--sw", "-q")
    assert code != 0 and "1 failed, 1 passed" in out, out  # both, then simple: stop
    code, out = pytest_run(failing, "--stepsmith", "wf", "--sw", "-v")
    assert "skipping 1 already passed items" in out, out


def test_node_id_and_fixture_path_as_plain_arguments_narrow_the_run(failing):
    code, out = pytest_run(failing, "--stepsmith", "wf::double::from-add", "-q")
    assert "1 failed" in out and "passed" not in out, out
    code, out = pytest_run(failing, "--stepsmith", "--", "wf/fixtures/add/both.json", "-q")
    assert code == 0 and "1 passed" in out and "failed" not in out, out
    code, out = pytest_run(failing, "--stepsmith", "wf", "wf/fixtures/add/both.json", "-q")
    assert code == 0 and "1 passed" in out, out
    code, out = pytest_run(failing, "--stepsmith", "wf", "wf::add::both", "-q")
    assert code == 0 and "1 passed" in out, out


def test_stepsmith_as_a_bare_flag_uses_the_configured_paths_else_here(failing):
    code, out = pytest_run(failing, "--stepsmith", "-q", "--co")
    assert code == 0 and "7 tests collected" in out, out
    (failing / "other").mkdir()
    (failing / "pyproject.toml").write_text('[tool.stepsmith]\npaths = ["other"]\n')
    code, out = pytest_run(failing, "--stepsmith", "-q", "--co")
    assert "no tests collected" in out or code == 5, out
