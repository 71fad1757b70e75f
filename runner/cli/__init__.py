"""`stepsmith` command line: one module per sub-command, each exposing `register(sub)`.

A command module's `register(subparsers)` adds its parser and sets `func=run` where
`run(args) -> int` returns the exit code: 0 clean, 1 findings/failures, 2 usage or internal error.
Heavy imports happen inside `run`, so `stepsmith --help` and `stepsmith serve` start fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# Sub-command modules, in the order `--help` lists them. A module missing here is a bug.
COMMANDS = [
    "check",
    "reach",
    "schema",
    "rules",
    "test",
    "run",
    "record",
    "run_workflow",
    "replay",
    "review",
    "serve",
]


def build_parser() -> argparse.ArgumentParser:
    from stepsmith.runner import __version__

    parser = argparse.ArgumentParser(
        prog="stepsmith",
        description="Author, check and test-run sandboxed Python workflows.",
    )
    parser.add_argument("--version", action="version", version=f"stepsmith {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"stepsmith.runner.cli.{name}")
        except ModuleNotFoundError as exc:  # a command not built yet must not break the others
            if exc.name != f"stepsmith.runner.cli.{name}":
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("stepsmith: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug of ours: one clear line and exit 2, never a clean-looking run
        if os.environ.get("STEPSMITH_DEBUG"):
            raise
        print(f"stepsmith {args.command}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
