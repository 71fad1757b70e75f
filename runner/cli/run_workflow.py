"""`stepsmith run-workflow PATH --case CASE [--run-id ID]`: run a whole workflow, accepting
each step's result before the next one starts (see stepsmith.runner.store.runs).

Exit 0 when every step was accepted or reused, 1 when a step failed or the store refused
(different request / different runtime identity under this run id), 2 on usage errors
(unknown case: the available ones are listed; a case or run id that cannot be a name) or
when the sandbox is unavailable."""

from __future__ import annotations

import argparse
import sys


def register(sub) -> None:
    p = sub.add_parser("run-workflow", help="run a whole workflow, accepting each step's result",
                       description="Run every step of a workflow in manifest (wiring) order "
                       "with sources from fixtures/_workflow/<CASE>.json, accepting each ok "
                       "result into .stepsmith/results.sqlite3 before the next step. Re-running "
                       "a run id resumes from its accepted results.")
    p.add_argument("path", metavar="PATH", help="workflow folder or manifest")
    p.add_argument("--case", required=True, help="workflow case: fixtures/_workflow/<CASE>.json")
    p.add_argument("--run-id", default=None, help="run id (default: the case name)")
    p.add_argument("--live", action="store_true",
                   help="run public_egress steps against the network instead of the case's "
                   "recorded outputs (never retried)")
    p.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                   help="when another process is executing this run id, wait up to SECONDS "
                   "for it instead of refusing at once (default: 0)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=run)


MARKS = {"accepted": "[green]✓ accepted[/]", "reused": "[cyan]↺ reused[/]  ",
         "failed": "[red]✗ failed[/]  ", "same": "[green]✓ same[/]    ",
         "differs": "[red]✗ differs[/] ", "changed": "[red]✗ changed[/] ",
         "recorded": "[yellow]⏺ recorded[/]"}


def print_outcome(console, o) -> None:
    from rich.markup import escape

    extra = ""
    if o.served_from == "recording" and o.outcome in ("accepted", "reused"):
        extra = " [yellow](served from recording)[/]"
    sha = f" [dim]request {o.request_sha256[:12]}[/]" if o.request_sha256 else ""
    detail = o.detail or ""
    if o.outcome == "reused" and "\n" not in detail:
        extra += f" [dim]({escape(detail)})[/]"
        detail = ""
    console.print(f"{MARKS.get(o.outcome, o.outcome)} {escape(o.step_id)}{extra}{sha}")
    for line in detail.splitlines():
        if line:
            console.print("    " + escape(line))
    for d in o.differences:
        console.print(f"    [yellow]{escape(d.path)}[/]: {escape(d.message)}")
    if o.outcome == "differs" and o.accepted is not None and isinstance(o.result, dict):
        from rich.syntax import Syntax
        from stepsmith.runner.fixtures.compare import is_big, unified_diff

        for label in ("output", "effects"):
            exp, act = o.accepted.get(label), o.result.get(label)
            if exp != act and is_big(exp, act):
                console.print(Syntax(unified_diff(exp, act, label).replace(
                    "expected", "accepted").replace("actual", "fresh"), "diff",
                    theme="ansi_dark", background_color="default"))


def run(args: argparse.Namespace) -> int:
    import json

    from rich.console import Console
    from stepsmith.runner.fixtures.invoke import (
        InvokeError,
        load_workflow,
        sandbox_status,
    )
    from stepsmith.runner.store.db import StoreError
    from stepsmith.runner.store.lease import LeaseHeld
    from stepsmith.runner.store.runs import (
        PinMismatch,
        RunError,
        RunUsageError,
        SandboxUnavailable,
        check_case_name,
        check_pin,
        check_run_id,
        run_workflow,
    )

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    out = Console(highlight=False, soft_wrap=True)
    try:
        lw = load_workflow(args.path)
    except InvokeError as exc:
        err.print(f"stepsmith run-workflow: {exc}", markup=False)
        return 2
    try:  # usage errors first, before anything is printed or stored
        check_case_name(lw, args.case)
        check_run_id(args.case if args.run_id is None else args.run_id)
        check_pin(lw)
    except (RunUsageError, PinMismatch) as exc:
        err.print(f"stepsmith run-workflow: {exc}", markup=False)
        return 2
    ok, why = sandbox_status()
    if not ok:
        err.print(f"stepsmith run-workflow: the sandbox is unavailable: {why}", markup=False)
        return 2
    text = args.format == "text"
    if args.wait < 0:
        err.print("stepsmith run-workflow: --wait must be 0 or more seconds", markup=False)
        return 2

    def started(report) -> None:
        if not text:
            return
        out.print(f"run [bold]{report.run_id}[/] of {report.workflow} v{report.version} "
                  f"(case {args.case})" + (f", attempt {report.attempt}"
                                           if report.attempt > 1 else ""))
        if report.took_over_from:
            out.print(f"[yellow]took the run over from {report.took_over_from}[/] "
                      "(that process is gone or its lease expired)")

    try:
        report = run_workflow(lw, args.case, run_id=args.run_id, live=args.live,
                              wait=args.wait, on_start=started,
                              on_step=(lambda o: print_outcome(out, o)) if text else None)
    except LeaseHeld as exc:
        err.print(f"stepsmith run-workflow: {exc}", markup=False)
        return 1
    except SandboxUnavailable as exc:
        err.print(f"stepsmith run-workflow: the sandbox is unavailable: {exc}", markup=False)
        return 2
    except (RunError, StoreError) as exc:
        err.print(f"stepsmith run-workflow: {exc}", markup=False)
        return 2 if isinstance(exc, (RunUsageError, PinMismatch)) else 1
    if not text:
        sys.stdout.write(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        n = {k: sum(s.outcome == k for s in report.steps) for k in ("accepted", "reused",
                                                                     "failed")}
        total = len(lw.workflow.steps)
        state = "complete" if report.ok and len(report.steps) == total else "stopped"
        out.print(f"run {report.run_id}: {state} — {n['accepted']} accepted, {n['reused']} "
                  f"reused, {n['failed']} failed, {total - len(report.steps)} not run")
    return 0 if report.ok else 1

