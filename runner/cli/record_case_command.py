"""`stepsmith record PATH --case CASE [--name NAME]`: one fixture per step from a workflow
case (see stepsmith.runner.app.record_case). Exit 0 when every step was recorded (new,
unchanged or pending), 1 when a step failed or was skipped, 2 on usage errors or an
unavailable sandbox."""

from __future__ import annotations

import argparse

from stepsmith.runner.app.workflow_runs import record_case
from stepsmith.runner.display import display_path

MARKS = {"new": "[green]+ new[/]      ", "pending": "[yellow]~ pending[/]  ",
         "unchanged": "[dim]= unchanged[/]", "failed": "[red]✗ failed[/]   ",
         "skipped": "[red]- skipped[/]  "}


def run(args: argparse.Namespace) -> int:
    from rich.markup import escape
    from stepsmith.runner.cli.console import SafeConsole as Console
    from stepsmith.runner.cli.loopview import print_stdout

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    out = Console(highlight=False, soft_wrap=True)
    if args.step or args.inputs:
        err.print("stepsmith record: --case records every step of the case; it takes no "
                  "--step/--inputs", markup=False)
        return 2
    rec = record_case(args.path, args.case, args.name, live=args.live)
    for s in rec.steps:
        out.print(f"{MARKS[s.outcome]} {escape(s.step_id)}  [dim]{escape(display_path(s.fixture))}[/]"
                  + (f"  {escape(s.message)}" if s.message and s.outcome != "pending" else ""))
        print_stdout(out, (s.result or {}).get("stdout"), indent="    ")
    n = {k: rec.count(k) for k in MARKS}
    out.print(f"case {args.case}: {n['new']} new, {n['pending']} pending, {n['unchanged']} "
              f"unchanged, {n['failed']} failed, {n['skipped']} skipped")
    if n["pending"]:
        out.print(f"existing fixtures were not overwritten: `stepsmith review "
                  f"{display_path(rec.workflow.dir)}` to accept the changes")
    return 0 if rec.ok else 1
