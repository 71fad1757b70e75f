"""`stepsmith run PATH --step S --inputs FILE|-`: run one step once in a fresh sandbox and
print its typed result. Exit 0 when the step returned (status ok), 1 for any other status or
a workflow with check problems, 2 for usage errors or an unavailable sandbox."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from stepsmith.runner.app.step import StepRequest, ensure_sandbox, execute, prepare
from stepsmith.runner.cli.args import add_format, add_step_arguments
from stepsmith.runner.cli.render import print_result
from stepsmith.runner.errors import SandboxUnavailable, UsageError
from stepsmith.runner.fixtures.load import load_fixture, problem_text


def register(sub) -> None:
    p = sub.add_parser("run", help="run one step once in a sandbox and print the result",
                       description="Run one step once in a fresh sandbox and print its typed "
                       "result.")
    add_step_arguments(p, required=False)
    add_format(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from stepsmith.runner.cli.console import SafeConsole as Console

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if args.path.endswith(".json") and args.step is None and args.inputs is None:
        _from_fixture(args)  # `stepsmith run FIXTURE`: its step, inputs, time and seed
    missing = [f for f, v in (("--step", args.step), ("--inputs", args.inputs)) if v is None]
    if missing:
        err.print(f"stepsmith run: the following arguments are required: {', '.join(missing)} "
                  "(or give a fixture file as PATH)", markup=False)
        return 2
    p = prepare(StepRequest(args.path, args.step, args.inputs, args.at, args.seed, args.live))
    ensure_sandbox()
    if p.step.network == "public_egress" and not args.live:
        err.print(f"note: {p.step.id} is a public_egress step; it runs WITHOUT network unless "
                  "--live", markup=False)
    res = execute(p, seed=args.seed, live=args.live)
    if res.get("status") == "unavailable":
        raise SandboxUnavailable(str(res.get("message") or res.get("error")
                                     or "sandbox unavailable"))
    if args.format == "json":
        sys.stdout.write(json.dumps(res, indent=2, ensure_ascii=False) + "\n")
    else:
        print_result(Console(highlight=False, soft_wrap=True), res, p.step.id)
    return 0 if res.get("status") == "ok" else 1


def _from_fixture(args: argparse.Namespace) -> None:
    """Fill step, inputs, time and seed from `fixtures/<step>/<case>.json` (--at and --seed
    given on the command line win); the workflow is the folder holding `fixtures/`."""

    path = Path(args.path)
    if not path.is_file():
        raise UsageError(f"{args.path}: no such fixture file")
    if path.parent.parent.name != "fixtures":
        raise UsageError(f"{args.path}: a fixture lives in fixtures/<step-id>/<case>.json")
    fx, problems = load_fixture(path, step_id=path.parent.name, shown=args.path)
    if problems or fx is None:
        raise UsageError("; ".join(problem_text(p) for p in problems)
                         or f"{args.path}: not a fixture")
    args.path, args.step, args.inputs = str(path.parent.parent.parent), path.parent.name, fx.inputs
    args.at = args.at if args.at is not None else fx.evaluation_time
    args.seed = args.seed if args.seed is not None else fx.seed
