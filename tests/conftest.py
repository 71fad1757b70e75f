"""Shared by every suite: the `kit` and real-sandbox fixtures. The kits themselves are modules of
tests/kits/, on pytest's `pythonpath`. Loaded for every suite; it imports nothing heavy."""

import hypothesis
import pytest
import wfkit as wfkit
from _pytest.assertion import rewrite as _rewrite
from stepsmith.runner.validator.astlock import AST_LOCK

# pytest rewrites the asserts of every module of a plugin's distribution as it is imported, and
# stepsmith is one: the commands the suites call in-process import modules lazily on their
# worker threads, so pytest's `ast.parse` there meets our parses on other threads, which
# CPython 3.11 cannot do at once (runner/validator/astlock.py). Its parse takes our lock too.
# tests/workspace/test_ast_threads.py fails if this hook point goes.
_rewrite_test = _rewrite._rewrite_test


def _rewrite_test_locked(fn, config):
    with AST_LOCK:
        return _rewrite_test(fn, config)


_rewrite._rewrite_test = _rewrite_test_locked


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
    (tests/cli_run/test_test_ci_collect_and_order.py sets it where it is the subject)."""
    monkeypatch.delenv("CI", raising=False)


def pytest_collection_modifyitems(items):
    """Every hypothesis test is `slow` (it draws up to hundreds of examples): `-m "not slow"`
    is the quick edit-test loop; CI runs everything."""
    for item in items:
        if hypothesis.is_hypothesis_test(getattr(item, "obj", None)):
            item.add_marker(pytest.mark.slow)
