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

# workflow data reaches these lines (names, messages): print is the one display filter
from stepsmith.runner.display import safe_print as print

# Sub-command modules, in the order `--help` lists them. A module missing here is a bug.
COMMANDS = [
    "check_command",
    "reach",
    "schema",
    "rules",
    "test",
    "mutants",
    "run",
    "record",
    "run_workflow",
    "replay",
    "init",
    "python",
    "review",
    "serve",
    "mcp",
    "guide",
    "completion",
]

# The commands each module registers, with the one line `stepsmith --help` shows for each: a
# command line imports only the module of the command it names (start-up time; the others
# are listed from here). tests/cli/test_cli_lean_parser.py holds this to what the modules
# register.
LISTED = {
    "check_command": {"check": "validate workflow manifests and their step code"},
    "reach": {"reach": "show what each step is permitted to reach"},
    "schema": {"schema": "print the JSON Schema of workflow.yaml"},
    "rules": {"rules": "list every rule (step code SS*, manifest SM*)",
              "rule": "explain one rule: summary, rationale, examples"},
    "test": {"test": "run the recorded fixtures of workflows in sandboxes"},
    "mutants": {"mutants": "show which small changes to each step no fixture notices "
                "(fixture strength)"},
    "run": {"run": "run one step once in a sandbox and print the result"},
    "record": {"record": "run one step and save the run as a fixture"},
    "run_workflow": {"run-workflow": "run a whole workflow, accepting each step's result"},
    "replay": {"replay": "re-execute an accepted run and report differences"},
    "init": {"init": "scaffold a new workflow that passes check and test"},
    "python": {"python": "show which Python each workflow is checked and run on"},
    "review": {"review": "accept or reject pending fixture changes"},
    "serve": {"serve": "start the language server (LSP over stdio, or --tcp)"},
    "mcp": {"mcp": "start the MCP server for AI assistants (stdio)"},
    "guide": {"guide": "print the user guide (a tutorial, then the reference)"},
    "completion": {"completion": "print a shell completion script (bash, zsh, fish)"},
}


def version_text(version: str) -> str:
    """`stepsmith --version`: the package, the harness version and the Python steps run on.
    It imports no sandbox and hashes nothing (a CLI in shells and hooks answers this at once);
    the full runtime identity, with the harness source hash results are tied to, is in
    `stepsmith --show-settings`."""
    import platform

    from stepsmith.runner.harness import HARNESS_VERSION

    return (f"stepsmith {version} (harness {version}+h{HARNESS_VERSION}, "
            f"Python {platform.python_version()})")


class _Version(argparse.Action):
    """Printed when asked, before any sub-command is looked at."""

    def __init__(self, option_strings, dest, version: str = "", **kw):
        super().__init__(option_strings, dest, **kw)
        self.version = version

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text(self.version))
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line. `only`: the module (of COMMANDS) of the command a command line
    names, whose commands alone are registered: it imports no other command module (nor
    builds their parsers); "" for a command line naming none, whose help lists every
    command by name and help line alone (LISTED). What the command line can show (its
    help, its errors) is the same as the whole parser's."""
    from stepsmith.runner import __version__

    parser = argparse.ArgumentParser(
        prog="stepsmith",
        description="Author, check and test-run sandboxed Python workflows.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, version=__version__,
                        help="print the version (harness, Python), then exit")
    parser.add_argument("--show-settings", action="store_true",
                        help="print the resolved settings ([tool.stepsmith] in pyproject.toml "
                        "or stepsmith.toml, found upward) and where each came from, then exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if only is not None and name != only:
            if only == "":  # no command named: the top-level help lists them all
                for command, line in LISTED[name].items():
                    sub.add_parser(command, help=line)
            continue
        importlib.import_module(f"stepsmith.runner.cli.{name}").register(sub)
    return parser


def _module_named(argv: list[str]) -> str | None:
    """The module of the command `argv` names ("" for none), None when its first word is no
    command (the whole parser then says so, and lists them). The top-level options take no
    value, so the first word not starting with '-' is the command."""
    word = next((a for a in argv if not a.startswith("-")), None)
    if word is None or any(a in ("-h", "--help") for a in argv[:argv.index(word)]):
        return ""  # (`stepsmith --help check` is the top-level help)
    return next((m for m, names in LISTED.items() if word in names), None)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    if wants_json(argv):
        from stepsmith.runner.cli.jsonmode import guarded

        return guarded(argv, lambda: _dispatch(argv))
    return _dispatch(argv)


def console_main() -> None:
    """The `stepsmith` console script and `python -m stepsmith.runner.cli`: `main()`, then an
    exit that skips tearing the interpreter down (freeing every module and object one by one:
    about 60 ms after a `test` run, bench/cli.py), as mypy's hard_exit does. Every exit
    function still runs first (spare sandboxes are stopped: sandbox/spares.py) and the output
    is flushed; with another thread still at work the exit is Python's own, which waits for
    it (a daemon thread, such as a root runner's sandbox launcher, is abandoned either way)."""
    import atexit
    import threading

    code = main()  # SystemExit (usage, --help, --version) leaves the ordinary way
    code = 0 if code is None else code
    me = threading.current_thread()
    if any(t is not me and not t.daemon and t.is_alive() for t in threading.enumerate()):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: Python's own exit says 120
            code = code or 120
    os._exit(code if isinstance(code, int) else 1)


def _start_path(args) -> str:
    """Where the settings file is searched from: the command's first PATH, else here."""
    for name in ("paths", "path"):
        value = getattr(args, name, None)
        if isinstance(value, list) and value:
            return value[0].partition("::")[0]
        if isinstance(value, str) and value:
            return value
    return "."


def wants_json(argv: list[str]) -> bool:
    """`--format json` anywhere on the command line (before argparse has parsed it: a usage
    error must come out as JSON too)."""
    return any(a == "--format=json" or (a == "--format" and argv[i + 1:i + 2] == ["json"])
               for i, a in enumerate(argv))


class _Interrupt:
    """Whether Ctrl-C arrived during this command: a library may turn the KeyboardInterrupt
    into an error of its own (pydantic-core's SchemaError during its start-up), which must
    still end as an interrupt (130), never as "internal error" (2)."""

    seen = False

    @classmethod
    def handler(cls, signum, frame):
        cls.seen = True
        raise KeyboardInterrupt


def _dispatch(argv: list[str]) -> int:
    import signal

    _Interrupt.seen = False
    try:
        previous = signal.signal(signal.SIGINT, _Interrupt.handler)
    except ValueError:  # not the main thread (an embedding caller): nothing to watch
        return _run(argv)
    try:
        return _run(argv)
    finally:
        signal.signal(signal.SIGINT, previous)


def _run(argv: list[str]) -> int:
    """The command `argv` names: its module imported (with what its command needs: Ctrl-C
    while it loads is an interrupt too), then run."""
    try:
        parser = build_parser(only=_module_named(argv))
    except (KeyboardInterrupt, Exception):
        if not _Interrupt.seen:
            raise
        print("stepsmith: interrupted", file=sys.stderr)
        return 130
    return _dispatch_args(parser, argv)


def _pasted_paths(args) -> None:
    """PATHs as stepsmith prints them inside a workflow folder (its name, not `.`) work pasted
    there: every printed id or command works where it was printed (selection.from_inside)."""
    from stepsmith.runner.workspace.pasted import from_inside

    for name in ("paths", "path"):
        value = getattr(args, name, None)
        if isinstance(value, list):
            setattr(args, name, [from_inside(v) if isinstance(v, str) else v for v in value])
        elif isinstance(value, str) and value not in ("-", ""):
            setattr(args, name, from_inside(value))


def _dispatch_args(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    args = parser.parse_args(argv)
    _pasted_paths(args)
    from stepsmith.runner.settings import SettingsError, activate, load_settings

    try:
        settings = load_settings(_start_path(args))
    except SettingsError as exc:
        print(f"stepsmith: {exc}", file=sys.stderr)
        return 2
    activate(settings)
    if args.show_settings:
        from stepsmith.runner.cli.init import show_settings

        return show_settings(settings)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from stepsmith.runner.errors import StepsmithError

    try:
        return int(args.func(args) or 0)
    except StepsmithError as exc:  # a use case's typed refusal: the one mapping to exit codes
        from stepsmith.runner.cli.errors import report

        return report(args.command, exc)
    except KeyboardInterrupt:
        print("stepsmith: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug of ours: one clear line and exit 2, never a clean-looking run
        if _Interrupt.seen:
            print("stepsmith: interrupted", file=sys.stderr)
            return 130
        if os.environ.get("STEPSMITH_DEBUG"):
            raise
        print(f"stepsmith {args.command}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
