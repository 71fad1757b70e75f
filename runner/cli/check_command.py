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
    p.add_argument("--output-format", "--format", dest="format", default="full",
                   choices=("full", "text", "concise", "json", "json-lines", "github", "gitlab",
                            "sarif", "junit"),
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
    from stepsmith.runner.app.errors import UsageError
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
    results, steps_of, stale = report.problems, report.steps_of, report.stale

    rows = []
    if any(results.values()):  # (the renderers of findings: not needed by a clean tree)
        from stepsmith.runner.problem_steps import steps_for
    # the rows: files with findings (a clean file of a large tree costs no path arithmetic)
    for path in sorted((p for p, probs in results.items() if probs), key=_display):
        shown = _display(path)
        for pr in sorted(results[path], key=lambda p: (p.span.line, p.span.column, p.code)):
            rows.append((shown, pr, steps_for(pr, path, steps_of)))
    n_files = len({row[0] for row in rows})
    stale = stale if results else []

    if args.format not in ("full", "text", "json"):
        return _render_other(args, results, rows, stale)
    if args.statistics:
        return _render_statistics(args, rows, results, stale)
    if args.format == "json":
        from stepsmith.runner.cli.check_formats import Finding, problem_json

        out = []
        for shown, pr, _steps in rows:
            out.append(problem_json(Finding(shown, pr)))
        json.dump(
            {"problems": out, "files_checked": len(results), "files_with_problems": n_files,
             "warnings": [w.to_json() for w in stale]},
            sys.stdout,
            indent=2,
        )
        sys.stdout.write("\n")
    else:
        if not results:
            print("stepsmith check: no workflow manifests or step files found under "
                  + ", ".join(paths), file=sys.stderr)
            # a folder named on the command line that holds nothing to check is a mistake
            # (exit 2); the bare default `.` (pre-commit in a repo without workflows) is not
            return 2 if args.paths else 0
        if rows:
            from stepsmith.runner.problems import message_with_step
        for shown, pr, steps in rows:
            print(f"{shown}:{pr.span.line}:{pr.span.column + 1}: {pr.code} "
                  f"{message_with_step(pr, steps)}")
        for w in stale:
            print(f"{w.fixture}: {'error' if args.strict else 'warning'}: {w.message}")
        n_fixed = sum(fixed_counts.values()) if fixed_counts else 0
        if rows:
            noun = "problem" if len(rows) + n_fixed == 1 else "problems"  # all that were found
            fnoun = "file" if n_files == 1 else "files"
            done = f" ({n_fixed} fixed, {len(rows)} remaining)" if n_fixed else ""
            print(f"Found {len(rows) + n_fixed} {noun} in {n_files} {fnoun}{done}."
                  if n_fixed else f"Found {len(rows)} {noun} in {n_files} {fnoun}.")
            from stepsmith.runner.cli.check_fix import fixable_hint

            fixable_hint([row[1] for row in rows], unsafe=args.unsafe_fixes)
        elif n_fixed:
            print(f"Found {n_fixed} problem(s) ({n_fixed} fixed, 0 remaining).")
        else:
            print("All checks passed!")
    if not results:
        return 2 if args.paths else 0
    return _status(rows, stale, args.strict)


def _render_other(args, results, rows, stale) -> int:
    """The CI formats: one document on stdout, whatever it holds; exit status as `full`."""
    from stepsmith.runner.cli import check_formats as fm

    if args.statistics:
        return _render_statistics(args, rows, results, stale)
    findings = [fm.Finding(shown, pr) for shown, pr, _steps in rows]
    findings += _stale_findings(stale)
    if args.format == "concise":
        text = fm.render_concise(findings)
    elif args.format == "json-lines":
        text = fm.render_json_lines(findings)
    elif args.format == "github":
        text = fm.render_github(findings)
    elif args.format == "gitlab":
        text = fm.render_gitlab(findings)
    elif args.format == "sarif":
        from stepsmith import __version__

        text = fm.render_sarif(findings, version=__version__)
    else:
        text = fm.render_junit(findings, sorted({_display(p) for p in results}))
    from stepsmith.runner.display import display_text, json_text

    # JSON as \u escapes (same value), text and XML with visible escapes: no control reaches
    # a terminal that shows this output
    json_like = args.format in ("json-lines", "gitlab", "sarif")
    sys.stdout.write(json_text(text) if json_like else display_text(text))
    if not results:
        return 2 if args.paths else 0
    return _status(rows, stale, args.strict)


def _stale_findings(stale) -> list:
    """The SF001 warnings (`--strict` fails on them) as findings: a format that left them
    out would pass what the exit status fails."""
    from stepsmith.runner.cli.check_formats import Finding

    return [Finding(w.fixture, w.problem()) for w in stale]


def _render_statistics(args, rows, results, stale) -> int:
    from stepsmith.runner.cli import check_formats as fm

    stats = fm.statistics([fm.Finding(shown, pr) for shown, pr, _steps in rows]
                          + _stale_findings(stale))
    if args.format in ("json", "json-lines"):
        json.dump(stats, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(fm.render_statistics(stats))
    if not results:
        return 2 if args.paths else 0
    return _status(rows, stale, args.strict)


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


def _status(rows, stale, strict: bool) -> int:
    """1 when an error was found; warnings (SM401, stale fixtures) only with --strict."""
    errors = [row[1] for row in rows if row[1].severity != "warning"]
    return 1 if errors or (strict and (rows or stale)) else 0


def _git_error() -> type[Exception]:
    from stepsmith.runner.revisions.gitrev import GitError

    return GitError
