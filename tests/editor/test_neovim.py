"""A real editor: headless Neovim 0.7 (push diagnostics, incremental sync) drives
`python -m stepsmith.server` on an example workflow."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROBE = Path(__file__).with_name("lsp_probe.lua")
SENTENCE = "This is what each step is permitted to reach, not a review of what its code does."

# scripts/test installs neovim and sets STEPSMITH_STRICT=1, so there a missing nvim
# fails instead of skipping; a bare `pytest` elsewhere may skip it.
pytestmark = pytest.mark.skipif(
    shutil.which("nvim") is None and os.environ.get("STEPSMITH_STRICT") != "1",
    reason="neovim not installed (apt-get install neovim)")


def test_neovim_diagnostics_hover_and_edit(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(REPO / "examples" / "payment-chasing", ws / "payment-chasing",
                    ignore=shutil.ignore_patterns(".stepsmith"))
    step = ws / "payment-chasing" / "steps" / "overdue.py"
    original = step.read_text()
    # two violations at known lines: a disallowed import on line 1, eval in a helper at the end
    text = "import os\n" + original + "\n\ndef helper(x):\n    return eval(x)\n"
    step.write_text(text)
    lines = text.split("\n")
    def_line = lines.index("def overdue(receivables, grace_days):")
    eval_line = len(lines) - 2

    env = dict(os.environ)
    for var in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        d = tmp_path / var.lower()
        d.mkdir()
        env[var] = str(d)
    out = tmp_path / "result.json"
    env.update(PROBE_PY=sys.executable, PROBE_OUT=str(out), PROBE_ROOT=str(ws),
               PROBE_HOVER_LINE=str(def_line), PROBE_EXPECT="2", PROBE_TIMEOUT_MS="20000")
    proc = subprocess.run(
        ["timeout", "90", "nvim", "--headless", "--clean", "-n", "-c", f"luafile {PROBE}", str(step)],
        env=env, cwd=ws, capture_output=True, text=True, timeout=120)
    assert out.exists(), (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    res = json.loads(out.read_text())
    assert proc.returncode == 0 and "error" not in res, res

    diags = res["diagnostics"]
    assert [(d["lnum"], d["code"]) for d in diags] == [(0, "SS101"), (eval_line, "SS301")], diags
    assert diags[0]["col"] == 7 and diags[0]["end_col"] == 9
    assert all(d["source"] == "stepsmith" for d in diags)

    hover = res["hover"]
    assert hover and SENTENCE in hover and "overdue" in hover
    assert "`receivables`" in hover  # sources read
    assert "network" in hover

    after = res["diagnostics_after_edit"]
    assert [(d["lnum"], d["code"]) for d in after] == [(eval_line - 1, "SS301")]
    after2 = res["diagnostics_after_second_edit"]
    assert [d["code"] for d in after2] == ["SS301", "SS201"]
    assert res["sync"]["change"] == 2  # incremental
