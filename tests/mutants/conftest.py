"""The mutants suites: verdicts cached in a cache folder of each test's own (never the user's)."""

import pytest


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))
    monkeypatch.delenv("STEPSMITH_NO_CACHE", raising=False)
