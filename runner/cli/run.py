"""`stepsmith run PATH --step S --inputs FILE|-`: run one step once in a fresh sandbox and
print its typed result. Exit 0 when the step returned (status ok), 1 for any other status or
a workflow with check problems, 2 for usage errors or an unavailable sandbox."""

from __future__ import annotations

import argparse
import sys


def register(sub) -> None:
    from stepsmith.runner.cli.args import add_step_arguments

    p = sub.add_parser("run", help="run one step once in a sandbox and print the result",
                       description="Run one step once in a fresh sandbox and print its typed "
                       "result.")
    add_step_arguments(p)
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from stepsmith.runner.app.errors import SandboxUnavailable
    from stepsmith.runner.app.step import StepRequest, ensure_sandbox, execute, prepare
    from stepsmith.runner.cli.console import SafeConsole as Console
    from stepsmith.runner.cli.render import print_result

    err = Console(stderr=True, highlight=False, soft_wrap=True)
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
