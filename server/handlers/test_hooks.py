"""Requests only the test-suite registers (STEPSMITH_TEST_HOOKS=1): a failing handler, stray
output on stdout."""

from __future__ import annotations

import os

from stepsmith.server.handlers.common import safe


def register(ls) -> None:
    if os.environ.get("STEPSMITH_TEST_HOOKS") != "1":
        return

    @ls.feature("stepsmith/_raise")
    @safe
    def _raise(ls, params):
        raise RuntimeError("deliberate failure for the robustness test")

    @ls.feature("stepsmith/_print")
    def _print(ls, params):
        print("stray output that must not reach the protocol stream")
        os.write(1, b"raw write to fd 1\n")
        return {"printed": True}

    @ls.feature("stepsmith/_sandboxes")
    def _sandboxes(ls, params):
        """The bwrap pids of the runs in progress, the idle spares, and how many fixture runs
        were started (tests/server/test_live.py: a half-typed buffer starts none)."""
        from stepsmith.runner.sandbox import spares

        runs = ls.runs
        pool = spares.current()
        return {"running": sorted(p for g in (runs.groups if runs else ()) for p in g.pids()),
                "spares": pool.pids() if pool else [],
                "started": runs.started if runs else 0}
