"""`stepsmith record PATH --step S --inputs FILE|- --at TIME --name CASE`: run one step once
and save the run as the fixture ``fixtures/<step>/<CASE>.json``.

Refuses (exit 2, nothing written): an existing fixture without --force, a case name that is
not a case name (no folders, no '..'). Refuses (exit 1): inputs with forbidden field names, a
refused step (fix the code first), and — belt and braces on top of the sandbox's redaction —
any document in which a granted credential appears. Writes atomically.
"""

from __future__ import annotations

import argparse
import importlib

from stepsmith.runner.app.record import RecordRequest, record_fixture
from stepsmith.runner.app.step import StepRequest
from stepsmith.runner.cli.args import add_step_arguments, add_switches
from stepsmith.runner.cli.record_case_command import run as run_case
from stepsmith.runner.cli.render import print_result
from stepsmith.runner.display import display_path
from stepsmith.runner.errors import StepsmithError

_REEXPORTS = {"CASE_NAME": "stepsmith.runner.app.record",
              "NOT_RECORDABLE": "stepsmith.runner.app.record",
              "fixture_document": "stepsmith.runner.app.record",
              "write_atomic": "stepsmith.runner.safeio"}


def __getattr__(name: str):
    """The record use case's names, for the callers that import them from here, imported on
    first use: `stepsmith --help` registers this module and must stay fast."""
    if name in _REEXPORTS:
        return getattr(importlib.import_module(_REEXPORTS[name]), name)
    raise AttributeError(name)


def register(sub) -> None:
    p = sub.add_parser("record", help="run one step and save the run as a fixture",
                       description="Run one step once in a fresh sandbox and save inputs, "
                       "evaluation time, seed and the result as fixtures/<step>/<CASE>.json.")
    add_step_arguments(p, at_required=True, required=False)
    p.add_argument("--name", metavar="CASE",
                   help="case name (lowercase slug: a-z, 0-9, '-', '_'); with --case, the "
                   "fixtures' name (default: the case name)")
    add_switches(p, force="overwrite an existing fixture")
    p.add_argument("--response", metavar="FILE",
                   help="a public_egress step, offline: record FILE's JSON object as its "
                   "output (nothing runs; tests serve it as the recording)")
    add_switches(p, record_failure="with --live: record a failed live call as the expected "
                 "result (by default it is refused: its outcome at the other end is unknown)")
    p.add_argument("--case", metavar="CASE",
                   help="record one fixture per step from the workflow case "
                   "fixtures/_workflow/<CASE>.json (existing fixtures become pending changes)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from stepsmith.runner.cli.console import SafeConsole as Console

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if args.case is not None:
        return run_case(args)
    missing = [f for f, v in (("--step", args.step), ("--at", args.at), ("--name", args.name))
               if v is None]
    if missing:
        err.print(f"stepsmith record: the following arguments are required: "
                  f"{', '.join(missing)} (or --case CASE to record a whole workflow case)",
                  markup=False)
        return 2
    # without --inputs: every input must be a literal of the manifest (prepare names the rest)
    inputs = args.inputs if args.inputs is not None else {}
    req = RecordRequest(StepRequest(args.path, args.step, inputs, args.at, args.seed,
                                    args.live), args.name, args.force,
                        args.record_failure, args.response)
    try:
        rec = record_fixture(req)
    except StepsmithError as exc:
        if isinstance(exc.result, dict):  # the run that could not be recorded, then why
            print_result(err, exc.result, args.step)
        raise
    out = Console(highlight=False, soft_wrap=True)
    if args.response is not None:
        out.print(f"recorded {display_path(rec.target)} from {args.response} (the step was not "
                  "run: tests serve this output as its recording)", markup=False)
        return 0
    print_result(out, rec.result, args.step)
    note = " - a failed live call, recorded as asked" if rec.status != "ok" and args.live else ""
    out.print(f"recorded {display_path(rec.target)} (expected status {rec.status}){note}",
              markup=False)
    return 0
