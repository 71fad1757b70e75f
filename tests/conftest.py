"""Shared by the runner suites (fixtures, store, cli_run): the temp-workflow writer and the
real-sandbox fixture. Loaded for every suite; it imports nothing heavy."""

import importlib.util
import sys
from pathlib import Path

import pytest

if "stepsmith_wfkit" not in sys.modules:
    _spec = importlib.util.spec_from_file_location(
        "stepsmith_wfkit", Path(__file__).resolve().parent / "fixtures" / "wfkit.py")
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules["stepsmith_wfkit"] = _mod
    _spec.loader.exec_module(_mod)

import stepsmith_wfkit as wfkit


@pytest.fixture
def kit():
    return wfkit


def _sandbox_ok():
    try:
        from stepsmith.runner.sandbox import sandbox_available
    except ImportError:
        return False, "stepsmith.runner.sandbox is not importable"
    return sandbox_available()


@pytest.fixture
def sandbox():
    ok, why = _sandbox_ok()
    if not ok:
        pytest.fail(f"these tests need the real sandbox: {why}")


@pytest.fixture(autouse=True)
def _local_loop(monkeypatch):
    """.ci/run sets CI=true, under which `stepsmith test` writes no pending change (issue 20);
    the suites test the local fixture loop, so CI is not passed on to the code under test
    (tests/loop/test_loop_ci_and_order.py sets it where it is the subject)."""
    monkeypatch.delenv("CI", raising=False)
