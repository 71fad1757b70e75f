"""A spare holding an older harness is never handed a request (sandbox/spares.py `take`):
after the harness changes (a long-lived server after an upgrade, `reset_cache`), the run
starts a fresh sandbox with the new harness and the stale spare is killed. Issue 18 item 5:
the mutation table found that dropping the harness check passed every test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sandbox_kit import alive
from stepsmith.runner import harness, sandbox
from stepsmith.runner.sandbox import run_step, spares

RUNNER = Path(harness.__file__).resolve().parent.parent



def _changed_harness(dest: Path) -> Path:
    """A copy of the sandboxed code whose restricted builtins lack `abs`: a step calling it
    fails under the new harness and works under the old one."""
    root = dest / "runner"
    for name in ("harness", "validator", "rules"):
        shutil.copytree(RUNNER / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(RUNNER / "problems.py", root / "problems.py")
    restricted = root / "harness" / "restricted.py"
    text = restricted.read_text()
    assert text.count('"open", "eval",') == 1
    restricted.write_text(text.replace('"open", "eval",', '"open", "abs", "eval",'))
    return root


def test_a_spare_with_an_older_harness_is_discarded_not_used(tmp_path):
    src = "def f():\n    return abs(-1)\n"
    root = _changed_harness(tmp_path)
    pool = spares.enable(1)
    mp = pytest.MonkeyPatch()
    try:
        assert pool.wait_ready(30), "no spare started"
        (old,) = pool.pids()
        mp.setattr(harness, "_HERE", root / "harness")
        mp.setattr(harness, "_RUNNER", root)
        harness.reset_cache()
        res = run_step(src, "f", {})
        assert res.status == "error" and res.error["type"] == "NameError", (
            "the run used the spare with the old harness", res.status, res.output)
        assert not alive(old)  # discarded: killed, never handed the request
    finally:
        spares.disable()
        mp.undo()
        harness.reset_cache()
    assert run_step(src, "f", {}).output == 1  # this harness again, unchanged
    assert sandbox.runtime_identity()  # the cache is whole again
