"""`stepsmith run-workflow PATH --case CASE [--run-id ID]`: run a whole workflow, accepting
each step's result before the next one starts (see stepsmith.runner.app.stored_runs).

Exit 0 when every step was accepted or reused, 1 when a step failed or the store refused
(different request / different runtime identity under this run id), 2 on usage errors
(unknown case: the available ones are listed; a case or run id that cannot be a name) or
when the sandbox is unavailable."""

from __future__ import annotations

import argparse
import json
import sys

from stepsmith.runner.app.workflow_runs import RunRequest, run_workflow
from stepsmith.runner.cli.args import add_format, add_live
from stepsmith.runner.cli.render import StepLog
from stepsmith.runner.errors import StepsmithError


def register(sub) -> None:
    p = sub.add_parser("run-workflow", help="run a whole workflow, accepting each step's result",
                       description="Run every step of a workflow in manifest (wiring) order "
                       "with sources from fixtures/_workflow/<CASE>.json, accepting each ok "
                       "result into .stepsmith/results.sqlite3 before the next step. Re-running "
                       "a run id resumes from its accepted results.")
    p.add_argument("path", metavar="PATH", help="workflow folder or manifest")
    p.add_argument("--case", required=True, help="workflow case: fixtures/_workflow/<CASE>.json")
    p.add_argument("--run-id", default=None, help="run id (default: the case name)")
    add_live(p, "run public_egress steps against the network instead of the case's recorded "
             "outputs (never retried)")
    p.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                   help="when another process is executing this run id, wait up to SECONDS "
                   "for it instead of refusing at once (default: 0)")
    add_format(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from stepsmith.runner.cli.console import SafeConsole as Console

    out = Console(highlight=False, soft_wrap=True)
    text = args.format == "text"

    started_run: list = []

    def started(report) -> None:
        started_run.append(report.run_id)
        if not text:
            return
        out.print(f"run [bold]{report.run_id}[/] of {report.workflow} v{report.version} "
                  f"(case {args.case})" + (f", attempt {report.attempt}"
                                           if report.attempt > 1 else ""))
        if report.took_over_from:
            out.print(f"[yellow]took the run over from {report.took_over_from}[/] "
                      "(that process is gone or its lease expired)")

    log = StepLog(out, text)
    try:
        done = run_workflow(RunRequest(args.path, args.case, args.run_id, args.live, args.wait),
                            on_start=started, on_step=log)
    except StepsmithError as exc:
        if text and started_run:  # a run that started and then stopped: say so where it ran
            n = {k: sum(s.outcome == k for s in log.seen) for k in ("accepted", "reused")}
            reused = f", {n['reused']} reused" if n["reused"] else ""
            log.stopped(exc, f"run {started_run[0]}: stopped — {n['accepted']} accepted{reused}")
        raise
    report = done.report
    if not text:
        sys.stdout.write(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        n = {k: sum(s.outcome == k for s in report.steps) for k in ("accepted", "reused",
                                                                     "failed")}
        state = "complete" if done.complete else "stopped"
        out.print(f"run {report.run_id}: {state} — {n['accepted']} accepted, {n['reused']} "
                  f"reused, {n['failed']} failed, {done.total - len(report.steps)} not run")
    return 0 if report.ok else 1
