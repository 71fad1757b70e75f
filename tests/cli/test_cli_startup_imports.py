"""CLI speed (measured by bench/cli.py; here only what makes it so): `--version` and
`--help` import neither the sandbox, nor the validator, nor pydantic, and hash nothing."""

import json
import subprocess
import sys

import pytest

HEAVY = ("stepsmith.runner.sandbox", "stepsmith.runner.validator", "pydantic",
         "stepsmith.runner.store", "stepsmith.runner.app.record", "rich")


@pytest.mark.parametrize("argv", [["--version"], ["--help"]])
def test_light_commands_import_nothing_heavy(argv):
    code = ("import sys, json, contextlib, io\n"
            "from stepsmith.runner.cli import main\n"
            "buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n"
            "    try:\n"
            f"        main({argv!r})\n"
            "    except SystemExit:\n"
            "        pass\n"
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(p.stdout.splitlines()[-1]) == [], p.stdout
