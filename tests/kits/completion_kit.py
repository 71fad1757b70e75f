"""The shells the completion tests load our scripts into (tests/cli/test_cli_completion*.py)."""

import os
import shutil
import sys
from pathlib import Path

import pytest
from stepsmith.runner.cli import main

BIN = Path(sys.executable).parent
ZSH_DRIVER = Path(__file__).resolve().parents[1] / "cli" / "data" / "zsh_tab.zsh"

# scripts/setup installs zsh and fish and scripts/test sets STEPSMITH_STRICT=1, so there a
# missing shell fails instead of skipping; a bare `pytest` elsewhere may skip it.
def _needs(shell):
    return pytest.mark.skipif(shutil.which(shell) is None
                              and os.environ.get("STEPSMITH_STRICT") != "1",
                              reason=f"{shell} not installed (apt-get install {shell})")


def _script(shell, capsys):
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def _env():
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
