"""`stepsmith replay RUN [PATH]`: re-execute a run's accepted steps from their stored
requests and report every step whose fresh result differs from the accepted one (a
determinism check); a step whose code changed since is re-executed with the current code
and shown with its code diff and its output diff. Exit 0 all identical, 1 differences /
changed requests / identity mismatch, 2 usage errors (unknown run id: the runs in the store
are listed) or sandbox unavailable."""

from __future__ import annotations

import argparse
import json
import sys

from stepsmith.runner.app.workflow_runs import replay
from stepsmith.runner.cli.args import add_format, add_switches
from stepsmith.runner.cli.render import StepLog
from stepsmith.runner.errors import StepsmithError


def register(sub) -> None:
    p = sub.add_parser("replay", help="re-execute an accepted run and report differences",
                       description="Re-execute every accepted step of run RUN from its stored "
                       "request and compare the fresh result with the accepted one. A step "
                       "whose code changed since is re-executed with the current code on the "
                       "same request (inputs, time, seed) and shown with its code and output "
                       "diffs.")
    p.add_argument("run_id", metavar="RUN", help="run id (see run-workflow)")
    p.add_argument("path", nargs="?", default=".", metavar="PATH",
                   help="workflow folder or manifest (default: .)")
    add_switches(p, stored_code="audit: re-execute each step with the source the store kept "
                 "for it (same pinned time and seed), whatever the checkout holds now")
    add_format(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from stepsmith.runner.cli.console import SafeConsole as Console

    out = Console(highlight=False, soft_wrap=True)
    text = args.format == "text"
    log = StepLog(out, text)
    try:
        report = replay(args.path, args.run_id, stored_code=args.stored_code, on_step=log)
    except StepsmithError as exc:
        if text and log.seen:  # a replay that started and then stopped: say so where it ran
            log.stopped(exc, f"replay {args.run_id}: stopped — {_counts(log.seen, 'recorded')}")
        raise
    if not text:
        sys.stdout.write(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        out.print(f"replay {args.run_id}: {_counts(report.steps, 'recorded (not re-executed)')}")
        if any(s.outcome in ("differs", "changed") for s in report.steps):
            out.print("[red]the run is NOT reproducible as accepted[/]")
    return 0 if report.ok else 1


def _counts(steps, recorded: str) -> str:
    bad = sum(s.outcome in ("differs", "changed") for s in steps)
    same = sum(s.outcome == "same" for s in steps)
    rec = sum(s.outcome == "recorded" for s in steps)
    return f"{same} identical, {rec} {recorded}, {bad} differ or changed"
