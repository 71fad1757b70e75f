"""A real editor renames a step id: headless Neovim 0.7 (prepareRename, rename, the client
applies the WorkspaceEdit itself) on a copy of examples/invoice-matching. Afterwards
`stepsmith check` is clean and the step's fixtures folder carries the new name.

Neovim < 0.9 advertises `resourceOperations: rename` but cannot rename a folder (E502,
neovim#22147), so the server moves the fixtures one file at a time for it (server/PROTOCOL.md).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROBE = Path(__file__).with_name("rename_probe.lua")

pytestmark = pytest.mark.skipif(
    shutil.which("nvim") is None and os.environ.get("STEPSMITH_STRICT") != "1",
    reason="neovim not installed (apt-get install neovim)")


def test_neovim_renames_a_step_id_and_its_fixtures_folder(tmp_path):
    ws = tmp_path / "ws"
    wf = ws / "invoice-matching"
    shutil.copytree(REPO / "examples" / "invoice-matching", wf,
                    ignore=shutil.ignore_patterns(".stepsmith"))
    manifest = wf / "workflow.yaml"
    original = manifest.read_text()
    lines = original.split("\n")
    line = lines.index("  - id: normalise")
    cases = sorted(p.name for p in (wf / "fixtures/normalise").iterdir())
    assert cases  # the example has fixtures for the step

    env = dict(os.environ)
    for var in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        (tmp_path / var.lower()).mkdir()
        env[var] = str(tmp_path / var.lower())
    out = tmp_path / "result.json"
    env.update(PROBE_PY=sys.executable, PROBE_OUT=str(out), PROBE_ROOT=str(ws),
               PROBE_LINE=str(line), PROBE_COL="10", PROBE_NEW_NAME="clean_up",
               PROBE_WAIT_FOR=str(wf / "fixtures/clean_up" / cases[-1]), PROBE_TIMEOUT_MS="20000")
    proc = subprocess.run(
        ["timeout", "90", "nvim", "--headless", "--clean", "-n", "-c", f"luafile {PROBE}",
         str(manifest)], env=env, cwd=ws, capture_output=True, text=True, timeout=120, check=False)
    assert out.exists(), (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    res = json.loads(out.read_text())
    assert proc.returncode == 0 and "error" not in res, res
    assert res["rename_provider"] == {"prepareProvider": True}
    assert res["prepare"] == {"range": {"start": {"line": line, "character": 8},
                                        "end": {"line": line, "character": 17}},
                              "placeholder": "normalise"}, res
    assert res["applied"], res

    expected = original.replace("id: normalise", "id: clean_up").replace(
        "steps.normalise.output", "steps.clean_up.output")
    assert expected.count("clean_up") == 3
    assert manifest.read_text() == expected
    assert sorted(p.name for p in (wf / "fixtures/clean_up").iterdir()) == cases
    assert not (wf / "fixtures/normalise").exists()

    check = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "check", str(wf)],
                           capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "All checks passed!" in check.stdout
