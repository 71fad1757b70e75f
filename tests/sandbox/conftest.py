"""The sandbox suite runs against real bubblewrap. Where bwrap is missing it is skipped, except
under scripts/test (STEPSMITH_STRICT=1): there every test runs, and fails, without it."""

import os

import pytest
from pythons_kit import py313  # noqa: F401  (the built 3.13: test_sandbox_code_check.py)
from stepsmith.runner.sandbox import sandbox_available

_OK, _WHY = sandbox_available()


def pytest_collection_modifyitems(config, items):
    if _OK or os.environ.get("STEPSMITH_STRICT") == "1":
        return
    for item in items:
        if "/tests/sandbox/" in str(item.fspath):
            item.add_marker(pytest.mark.skip(reason=_WHY))
