"""`stepsmith run PATH --step S --inputs FILE|-`: run one step once in a fresh sandbox and
print its typed result. Exit 0 when the step returned (status ok), 1 for any other status or
a workflow with check problems, 2 for usage errors or an unavailable sandbox."""

from __future__ import annotations

import argparse
import sys


def add_step_arguments(p, *, at_required: bool = False, required: bool = True) -> None:
    """`required=False`: the caller checks --step/--inputs/--at itself (record --case)."""
    p.add_argument("path", metavar="PATH", help="workflow folder or manifest")
    p.add_argument("--step", required=required, help="step id")
    p.add_argument("--inputs", required=required, metavar="FILE|-",
                   help="JSON object {parameter: value}; '-' reads stdin. Literal inputs of "
                   "the manifest are filled in when missing")
    p.add_argument("--at", required=at_required and required, metavar="TIME",
                   help="evaluation time, ISO 8601 (what now()/today() return inside the step)"
                   + ("" if at_required else "; without it, calling now() is an error"))
    p.add_argument("--seed", type=int, default=None, help="seed for sampling")
    p.add_argument("--live", action="store_true",
                   help="give a public_egress step the network (never retried)")


def register(sub) -> None:
    p = sub.add_parser("run", help="run one step once in a sandbox and print the result",
                       description="Run one step once in a fresh sandbox and print its typed "
                       "result.")
    add_step_arguments(p)
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=run)


class Usage(Exception):
    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def prepare(args):
    """(LoadedWorkflow, step, StepCode, given inputs, full inputs, evaluation time)."""
    from stepsmith.runner.fixtures.invoke import (
        InvokeError,
        build_inputs,
        check_forbidden_inputs,
        load_workflow,
        parse_at,
        read_inputs,
        step_code,
        unknown_step_message,
    )

    try:
        at = parse_at(args.at)
        lw = load_workflow(args.path)
    except InvokeError as exc:
        raise Usage(str(exc)) from exc
    if not lw.ok:
        raise Usage("the workflow has check problems; fix them first:\n"
                    + "\n".join("  " + x for x in lw.error_lines()), 1)
    from stepsmith.runner.fixtures.invoke import pin_problem

    why = pin_problem(lw)
    if why:
        raise Usage(why)
    step = lw.step(args.step)
    if step is None:
        raise Usage(unknown_step_message(args.step, lw.step_ids, lw.shown))
    try:
        given = read_inputs(args.inputs)
        check_forbidden_inputs(given)
        inputs = build_inputs(step, given)
        code = step_code(lw, step)
    except InvokeError as exc:
        raise Usage(str(exc), 1 if "forbidden" in str(exc) else 2) from exc
    return lw, step, code, given, inputs, at


def print_result(console, res: dict, step_id: str) -> None:
    from rich.json import JSON
    from rich.markup import escape
    from stepsmith.runner.fixtures.suite import describe_result

    status = res.get("status")
    style = "green" if status == "ok" else "red"
    ms = res.get("duration_ms")
    console.print(f"step [bold]{escape(step_id)}[/]: [{style}]{status}[/]"
                  + (f" [dim]({ms:.0f} ms)[/]" if isinstance(ms, (int, float)) else ""))
    if status == "ok":
        import json

        console.print("[bold]output[/]")
        console.print(JSON(json.dumps(res.get("output"), ensure_ascii=False)))
        effects = res.get("effects") or []
        if effects:
            console.print(f"[bold]effect intents[/] ({len(effects)}; recorded, never performed)")
            console.print(JSON(json.dumps(effects, ensure_ascii=False)))
    else:
        for line in describe_result(res):
            console.print("  " + escape(line))
    from stepsmith.runner.cli.loopview import print_stdout

    print_stdout(console, res.get("stdout"), indent="")


def run(args: argparse.Namespace) -> int:
    import json

    from rich.console import Console
    from stepsmith.runner.fixtures.invoke import (
        InvokeError,
        invoke,
        result_dict,
        sandbox_status,
    )

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        lw, step, code, _given, inputs, at = prepare(args)
    except Usage as exc:
        err.print(f"stepsmith run: {exc}", markup=False)
        return exc.code
    ok, why = sandbox_status()
    if not ok:
        err.print(f"stepsmith run: the sandbox is unavailable: {why}", markup=False)
        return 2
    if step.network == "public_egress" and not args.live:
        err.print(f"note: {step.id} is a public_egress step; it runs WITHOUT network unless "
                  "--live", markup=False)
    try:
        res = result_dict(invoke(lw, code, inputs, evaluation_time=at, seed=args.seed,
                                 live=args.live))
    except InvokeError as exc:  # a live run's missing credential: which alias, looked where
        err.print(f"stepsmith run: {exc}", markup=False)
        return 2
    if res.get("status") == "unavailable":
        err.print(f"stepsmith run: {res.get('message') or res.get('error') or 'sandbox unavailable'}",
                  markup=False)
        return 2
    if args.format == "json":
        sys.stdout.write(json.dumps(res, indent=2, ensure_ascii=False) + "\n")
    else:
        print_result(Console(highlight=False, soft_wrap=True), res, step.id)
    return 0 if res.get("status") == "ok" else 1

