"""The language server as the test-suite starts it: the real server (server/main.py) with
test-only requests and failures injected through `main(configure=...)`; production modules
read no test switches from the environment (issue 21).

    python tests/kits/hooked_server.py [--slow SECONDS] [--no-sandbox REASON] [server args]

  * requests `stepsmith/_raise` (a failing handler), `stepsmith/_print` (stray output on
    stdout), `stepsmith/_sandboxes` (the bwrap pids of the runs in progress, the idle spares,
    the idle fork servers the mutants keep between runs and how many fixture runs were
    started);
  * a step file containing `# stepsmith-test: crash-analysis` fails its analysis;
  * `--slow`: seconds added to discovery and to every manifest check (start-up races);
  * `--no-sandbox`: the sandbox reports itself unavailable with REASON.
"""

from __future__ import annotations

import argparse
import os
import sys

CRASH_MARKER = "# stepsmith-test: crash-analysis"


def register_requests(ls) -> None:
    from stepsmith.server.handlers.common import safe

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
        from stepsmith.runner.sandbox import spares

        runs = ls.runs
        pool = spares.current()
        kept = getattr(ls, "mutant_runs", None)
        kept = kept._servers if kept is not None else None
        return {"running": sorted(p for g in (runs.groups if runs else ()) for p in g.pids()),
                "spares": pool.pids() if pool else [],
                "kept": kept.idle_pids() if kept is not None else [],
                "started": runs.started if runs else 0}


def configure(slow: float, no_sandbox: str | None):
    def apply(ls) -> None:
        register_requests(ls)
        ls.scheduler.delay = slow
        ls.scheduler.fail_marker = CRASH_MARKER
        if no_sandbox:
            ls.sandbox_probe = lambda: (False, no_sandbox)

    return apply


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--slow", type=float, default=0.0)
    ap.add_argument("--no-sandbox")
    args, rest = ap.parse_known_args()
    from stepsmith.server.main import main

    sys.exit(main(rest, configure=configure(args.slow, args.no_sandbox)))
