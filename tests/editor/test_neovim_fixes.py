"""Headless Neovim 0.7 applies stepsmith's quick fix and fix-all with its own
`apply_workspace_edit`: the file ends clean; signature help answers inside a typed call."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROBE = Path(__file__).with_name("fix_probe.lua")

pytestmark = pytest.mark.skipif(
    shutil.which("nvim") is None and os.environ.get("STEPSMITH_STRICT") != "1",
    reason="neovim not installed (apt-get install neovim)")


def test_neovim_applies_quick_fix_and_fix_all(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(REPO / "examples" / "payment-chasing", ws / "payment-chasing",
                    ignore=shutil.ignore_patterns(".stepsmith"))
    step = ws / "payment-chasing" / "steps" / "overdue.py"
    original = step.read_text()
    step.write_text("import os\nimport decimal\nimport statistics\nimport sys\n" + original
                    + "\n\ndef noisy(mu):\n    return statistics.NormalDist(mu, 1).samples(\n        3,\n    )\n")
    env = dict(os.environ)
    for var in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        (tmp_path / var.lower()).mkdir()
        env[var] = str(tmp_path / var.lower())
    out = tmp_path / "result.json"
    env.update(PROBE_PY=sys.executable, PROBE_OUT=str(out), PROBE_ROOT=str(ws), PROBE_TIMEOUT_MS="20000")
    proc = subprocess.run(
        ["timeout", "90", "nvim", "--headless", "--clean", "-n", "-c", f"luafile {PROBE}", str(step)],
        env=env, cwd=ws, capture_output=True, text=True, timeout=120, check=False)
    assert out.exists(), (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    res = json.loads(out.read_text())
    assert proc.returncode == 0 and "error" not in res, res
    assert res["before"] == ["SS101", "SS101", "SS501"]
    assert res["quick_titles"] == ["Remove the disallowed import"]
    assert res["after_quick"] == ["SS101", "SS501"]
    assert res["fix_all_kinds"] == ["source.fixAll.stepsmith"]
    assert res["after_all"] == ["SS501"]  # the seed is the author's choice: not a safe fix
    text = "\n".join(res["text"])
    assert text.startswith("import decimal\nimport statistics\n" + original.split("\n")[0])
    assert "samples(\n        3,\n    )" in text
    assert res["signature"] == "Decimal(value='0', context=None)" and res["active"] == 1
