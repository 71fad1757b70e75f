"""A real client accepting completions: headless Neovim 0.7's built-in LSP omnifunc, `<C-y>` on
the first entry; the buffer must then read exactly what the author meant (no doubled prefix)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from stepsmith.runner.manifest import check_workflow

REPO = Path(__file__).resolve().parents[2]
PROBE = Path(__file__).with_name("completion_probe.lua")

pytestmark = pytest.mark.skipif(
    shutil.which("nvim") is None and os.environ.get("STEPSMITH_STRICT") != "1",
    reason="neovim not installed (apt-get install neovim)")


def _run(tmp_path: Path, manifest: Path, cases: list[dict]) -> list[dict]:
    env = dict(os.environ)
    for var in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        d = tmp_path / var.lower()
        d.mkdir(exist_ok=True)
        env[var] = str(d)
    out = tmp_path / "completion.json"
    env.update(PROBE_PY=sys.executable, PROBE_OUT=str(out), PROBE_ROOT=str(manifest.parent.parent),
               PROBE_CASES=json.dumps(cases), PROBE_TIMEOUT_MS="20000")
    proc = subprocess.run(
        ["timeout", "120", "nvim", "--headless", "--clean", "-n", "-c", f"luafile {PROBE}",
         str(manifest)], check=False, env=env, cwd=manifest.parent, capture_output=True, text=True,
        timeout=150)
    assert out.exists(), (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    res = json.loads(out.read_text())
    assert proc.returncode == 0 and "error" not in res, res
    return res["results"]


def test_accepting_completions_in_neovim(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(REPO / "examples" / "invoice-matching", ws / "invoice-matching",
                    ignore=shutil.ignore_patterns(".stepsmith"))
    manifest = ws / "invoice-matching" / "workflow.yaml"
    lines = manifest.read_text().split("\n")
    src = lines.index("      invoices: sources.invoices") + 1
    code = lines.index("    code: steps/match.py:match") + 1
    bills = lines.index("    code: steps/bills.py:draft_bills") + 1
    results = _run(tmp_path, manifest, [
        {"line": src, "text": "      invoices: sources.inv"},
        {"line": code, "text": "    code: steps/ma"},
        {"line": code, "text": "    code: steps/match.py:"},
        {"line": bills, "text": "    code: steps/"},
    ])
    got = [(r["menu"], r["after"]) for r in results]
    assert got == [(True, "      invoices: sources.invoices"),
                   (True, "    code: steps/match.py:match"),
                   (True, "    code: steps/match.py:match"),
                   (True, "    code: steps/bills.py:draft_bills")], results
    # what the client inserted is a workflow `check` accepts
    for r in results:
        lines[r["case"]["line"] - 1] = r["after"]
    manifest.write_text("\n".join(lines))
    problems = check_workflow(manifest).problems
    assert {str(k): [p.code for p in v] for k, v in problems.items() if v} == {}
