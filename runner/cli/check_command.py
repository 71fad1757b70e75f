"""`stepsmith check [PATH...]`: validate manifests and every step file they name.

PATH may be a folder (manifests found below it: workflow.yaml, *.workflow.yaml), a manifest,
or a step `.py` file or a folder inside a workflow (the workflow(s) in the nearest folder above
it that holds a manifest are checked, as git/pytest/ruff find their root; a `.py` file no
manifest names is validated on its own, with no reach). Default: the current folder.

Text output is ruff-style, `path:line:col: CODE message [step]`, with **1-based columns** (as
ruff prints them). The `[step]` suffix is always a step id from the manifest: for a finding in
step code, the step(s) that run the function it is in (none for a helper function). `--format json` emits Problem records exactly as the internal contract
defines them (line 1-based, column 0-based in code points, end exclusive).

Exit status: 0 clean, 1 problems found, 2 usage or internal error (including a PATH given
on the command line under which there is nothing to check; with no PATH, an empty `.` is a
warning and exit 0, so the pre-commit hook passes in a repository without workflows).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

# workflow data reaches these lines (names, messages): print is the one display filter
from stepsmith.runner.display import safe_print as print

DESCRIPTION = __doc__.split("\n\n", 1)[1]


def register(sub) -> None:
    from stepsmith.runner.cli.args import add_strict, add_switches, add_watch

    p = sub.add_parser(
        "check",
        help="validate workflow manifests and their step code",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="folders, manifests or step files (default: .)")
    from stepsmith.runner.cli.check_formats import ALIASES, OUTPUT_FORMATS

    p.add_argument("--output-format", "--format", dest="format", default="full",
                   choices=tuple(dict.fromkeys(("full", *ALIASES, *OUTPUT_FORMATS))),
                   help="full (default; `text` is the same), concise, json, json-lines, github "
                   "(workflow commands), gitlab (Code Quality), sarif (2.1.0), junit")
    add_switches(p, statistics="count the findings per rule instead of listing them")
    p.add_argument("--base", metavar="REV", default=None,
                   help="also check each workflow against the git revision REV as an immutable "
                   "version: changed since REV with the same `version:` warns (SM401), a lower "
                   "one is an error (SM402)")
    add_watch(p, "check", "check again on every save")
    add_switches(
        p, fix="apply the safe fixes to the files, then report what remains",
        unsafe_fixes="with --fix or --diff: also apply the guesses (did-you-mean); fixes that "
        "widen what a step can reach are never applied from here",
        diff="print the fixes as a unified diff instead of writing them (exit 1 when there is "
        "any)",
        show_fixes="with --fix: list what was fixed, per file and rule",
        no_cache="check every workflow again instead of answering unchanged ones from the "
        "cache ($XDG_CACHE_HOME/stepsmith/check; also STEPSMITH_NO_CACHE=1)")
    add_strict(p, "(SF001 warnings) fail the check")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--first",
        dest="first",
        action="store_true",
        help="report only the first broken rule per step in step code (the harness's gate)",
    )
    mode.add_argument(
        "--all", dest="first", action="store_false", help="report every problem (default)"
    )
    p.set_defaults(func=run, first=False)


def _display(path: Path) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith(".." + os.sep + "..") else rel


def run(args) -> int:
    from stepsmith.runner.settings import active

    paths = args.paths or active().paths
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        for p in missing:
            print(f"stepsmith check: {p}: no such file or folder", file=sys.stderr)
        return 2
    if getattr(args, "watch", False):
        return _watch(args, paths)
    fixed_counts = None
    if args.diff:
        from stepsmith.runner.cli.check_fix import print_diff

        return print_diff(paths, unsafe=args.unsafe_fixes)
    if args.fix:
        from stepsmith.runner.cli.check_fix import apply_fixes

        fixed_counts = apply_fixes(paths, unsafe=args.unsafe_fixes, show=args.show_fixes)
        if fixed_counts is None:
            return 2
    from stepsmith.runner.app.check import check
    from stepsmith.runner.errors import UsageError
    # (git's error only when git is asked: a plain check does not import it)
    GitError = _git_error() if args.base is not None else ()

    try:
        report = check(paths, first=args.first, cache=not args.no_cache, base=args.base)
    except UsageError as exc:
        print(f"stepsmith check: {exc}", file=sys.stderr)
        return 2
    except GitError as exc:
        print(f"stepsmith check --base: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # an internal error must not look like a clean run
        if os.environ.get("STEPSMITH_DEBUG"):
            raise
        print(f"stepsmith check: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    from stepsmith.runner.cli import check_formats as fm

    view = fm.View.of(report, _display)
    if args.statistics:
        return _render_statistics(args, view, report)
    name = fm.ALIASES.get(args.format, args.format)
    if name == "full" and not report.problems:
        print("stepsmith check: no workflow manifests or step files found under "
              + ", ".join(paths), file=sys.stderr)
        # a folder named on the command line that holds nothing to check is a mistake
        # (exit 2); the bare default `.` (pre-commit in a repo without workflows) is not
        return 2 if args.paths else 0
    from stepsmith.runner.display import display_text, json_text

    from stepsmith import __version__

    opts = fm.Options(strict=args.strict, unsafe=args.unsafe_fixes,
                      fixed=sum(fixed_counts.values()) if fixed_counts else 0,
                      version=__version__)
    text = fm.OUTPUT_FORMATS[name](view, opts)
    # no control reaches a terminal that shows this output
    sys.stdout.write(json_text(text) if name in fm.JSON_FORMATS else display_text(text))
    return _status(args, view, report)


def _render_statistics(args, view, report) -> int:
    from stepsmith.runner.cli import check_formats as fm

    stats = fm.statistics(view.findings)
    if args.format in ("json", "json-lines"):
        json.dump(stats, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(fm.render_statistics(stats))
    return _status(args, view, report)


def _watch(args, paths) -> int:
    """`check --watch`: the whole check again after every batch of saves (as ruff's)."""
    import argparse
    import time

    from stepsmith.runner.cli import watch
    from stepsmith.runner.cli.console import SafeConsole as Console

    console = Console(highlight=False, soft_wrap=True)
    once_args = argparse.Namespace(**{**vars(args), "watch": False, "paths": list(paths)})

    def once(changed) -> None:
        watch.clear(console)
        if changed is not None:
            print(f"[{time.strftime('%H:%M:%S')}] file(s) changed; checking again", flush=True)
        run(once_args)

    return watch.loop(list(paths), once)


def _status(args, view, report) -> int:
    """1 when an error was found; warnings (SM401, stale fixtures) only with --strict; 2
    when a PATH named on the command line holds nothing to check."""
    if not report.problems:
        return 2 if args.paths else 0
    errors = [row[1] for row in view.rows if row[1].severity != "warning"]
    return 1 if errors or (args.strict and (view.rows or view.stale)) else 0


def _git_error() -> type[Exception]:
    from stepsmith.runner.revisions.gitrev import GitError

    return GitError
