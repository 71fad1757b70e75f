"""`stepsmith record PATH --case CASE [--name NAME]`: one fixture per step from a workflow
case (see stepsmith.runner.fixtures.record_case). Exit 0 when every step was recorded (new,
unchanged or pending), 1 when a step failed or was skipped, 2 on usage errors or an
unavailable sandbox."""

from __future__ import annotations

import argparse

MARKS = {"new": "[green]+ new[/]      ", "pending": "[yellow]~ pending[/]  ",
         "unchanged": "[dim]= unchanged[/]", "failed": "[red]✗ failed[/]   ",
         "skipped": "[red]- skipped[/]  "}


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape
    from stepsmith.runner.cli.loopview import print_stdout
    from stepsmith.runner.cli.record import CASE_NAME
    from stepsmith.runner.fixtures.invoke import (
        InvokeError,
        display_path,
        load_workflow,
        sandbox_status,
    )
    from stepsmith.runner.fixtures.record_case import Unavailable, record_case
    from stepsmith.runner.store.runs import RunError, RunUsageError, check_case_name

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    out = Console(highlight=False, soft_wrap=True)
    if args.step or args.inputs:
        err.print("stepsmith record: --case records every step of the case; it takes no "
                  "--step/--inputs", markup=False)
        return 2
    try:
        lw = load_workflow(args.path)
        check_case_name(lw, args.case)
    except (InvokeError, RunUsageError) as exc:
        err.print(f"stepsmith record: {exc}", markup=False)
        return 2
    name = args.name or args.case
    if not CASE_NAME.match(name):
        err.print(f"stepsmith record: fixture name {name!r} is not a slug (lowercase letters, "
                  "digits, '-' and '_'); give one with --name", markup=False)
        return 2
    if not lw.ok:
        err.print("stepsmith record: the workflow has check problems:\n"
                  + "\n".join("  " + x for x in lw.error_lines()), markup=False)
        return 1
    ok, why = sandbox_status()
    if not ok:
        err.print(f"stepsmith record: the sandbox is unavailable: {why}", markup=False)
        return 2
    try:
        steps = record_case(lw, args.case, name, live=args.live)
    except Unavailable as exc:
        err.print(f"stepsmith record: the sandbox is unavailable: {exc}", markup=False)
        return 2
    except RunError as exc:
        err.print(f"stepsmith record: {exc}", markup=False)
        return 1
    for s in steps:
        out.print(f"{MARKS[s.outcome]} {escape(s.step_id)}  [dim]{escape(display_path(s.fixture))}[/]"
                  + (f"  {escape(s.message)}" if s.message and s.outcome != "pending" else ""))
        print_stdout(out, (s.result or {}).get("stdout"), indent="    ")
    n = {k: sum(s.outcome == k for s in steps) for k in MARKS}
    out.print(f"case {args.case}: {n['new']} new, {n['pending']} pending, {n['unchanged']} "
              f"unchanged, {n['failed']} failed, {n['skipped']} skipped")
    if n["pending"]:
        out.print(f"existing fixtures were not overwritten: `stepsmith review "
                  f"{display_path(lw.dir)}` to accept the changes")
    return 1 if n["failed"] or n["skipped"] else 0
