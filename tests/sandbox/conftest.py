"""The sandbox suite runs against real bubblewrap; it is skipped only when bwrap is missing."""

import pytest
from stepsmith.runner.sandbox import sandbox_available

_OK, _WHY = sandbox_available()


def pytest_collection_modifyitems(config, items):
    if _OK:
        return
    for item in items:
        if "/tests/sandbox/" in str(item.fspath):
            item.add_marker(pytest.mark.skip(reason=_WHY))
