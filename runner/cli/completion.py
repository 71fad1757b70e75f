"""`stepsmith completion bash|zsh|fish`: print a completion script for the shell, generated
from this very parser (runner/cli/completion_scripts.py), so every sub-command and flag is
completed as it is defined."""

from __future__ import annotations

import argparse
import sys

from stepsmith.runner.cli import build_parser
from stepsmith.runner.cli.completion_scripts import generate

INSTALL = """load it in the shell's start-up file:
  bash  ~/.bashrc                    source <(stepsmith completion bash)
  zsh   ~/.zshrc (after compinit)    source <(stepsmith completion zsh)
  fish  ~/.config/fish/config.fish   stepsmith completion fish | source
Sub-commands, options, their choices and files are completed; after `test`/`review`, a word
with `::` completes node ids (workflow::step::case)."""


def register(sub) -> None:
    p = sub.add_parser("completion", help="print a shell completion script (bash, zsh, fish)",
                       description="Print a completion script for SHELL, generated from "
                       "stepsmith's own argument parser.", epilog=INSTALL,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("shell", metavar="SHELL", choices=("bash", "zsh", "fish"),
                   help="bash, zsh or fish")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(generate(args.shell, build_parser()))
    return 0
