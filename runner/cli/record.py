"""`stepsmith record PATH --step S --inputs FILE|- --at TIME --name CASE`: run one step once
and save the run as the fixture ``fixtures/<step>/<CASE>.json``.

Refuses (exit 2, nothing written): an existing fixture without --force, a case name that is
not a case name (no folders, no '..'). Refuses (exit 1): inputs with forbidden field names, a
refused step (fix the code first), and — belt and braces on top of the sandbox's redaction —
any document in which a granted credential appears. Writes atomically.
"""

from __future__ import annotations

import argparse

from stepsmith.runner.app.record import (  # noqa: F401
    CASE_NAME,
    NOT_RECORDABLE,
    fixture_document,
)

# the record use case's names, for the callers that import them from here (the server)
from stepsmith.runner.safeio import write_atomic  # noqa: F401


def register(sub) -> None:
    from stepsmith.runner.cli.args import add_step_arguments

    p = sub.add_parser("record", help="run one step and save the run as a fixture",
                       description="Run one step once in a fresh sandbox and save inputs, "
                       "evaluation time, seed and the result as fixtures/<step>/<CASE>.json.")
    add_step_arguments(p, at_required=True, required=False)
    p.add_argument("--name", metavar="CASE",
                   help="case name (lowercase slug: a-z, 0-9, '-', '_'); with --case, the "
                   "fixtures' name (default: the case name)")
    p.add_argument("--force", action="store_true", help="overwrite an existing fixture")
    p.add_argument("--case", metavar="CASE",
                   help="record one fixture per step from the workflow case "
                   "fixtures/_workflow/<CASE>.json (existing fixtures become pending changes)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from stepsmith.runner.app.errors import AppError
    from stepsmith.runner.app.record import RecordRequest, record_fixture
    from stepsmith.runner.app.step import StepRequest
    from stepsmith.runner.cli.console import SafeConsole as Console
    from stepsmith.runner.cli.render import print_result
    from stepsmith.runner.fixtures.invoke import display_path

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if args.case is not None:
        from stepsmith.runner.cli.record_case import run as run_case

        return run_case(args)
    missing = [f for f, v in (("--step", args.step), ("--inputs", args.inputs),
                              ("--at", args.at), ("--name", args.name)) if v is None]
    if missing:
        err.print(f"stepsmith record: the following arguments are required: "
                  f"{', '.join(missing)} (or --case CASE to record a whole workflow case)",
                  markup=False)
        return 2
    req = RecordRequest(StepRequest(args.path, args.step, args.inputs, args.at, args.seed,
                                    args.live), args.name, args.force)
    try:
        rec = record_fixture(req)
    except AppError as exc:
        if isinstance(exc.result, dict):  # the run that could not be recorded, then why
            print_result(err, exc.result, args.step)
        raise
    out = Console(highlight=False, soft_wrap=True)
    print_result(out, rec.result, args.step)
    out.print(f"recorded {display_path(rec.target)} (expected status {rec.status})",
              markup=False)
    return 0
