"""`stepsmith mutants [PATH...]`: fixture strength. Each chosen step is changed in small ways
(runner/mutants/operators.py) and the fixtures that reach each change run against it in the
sandbox; a change no fixture notices is a survivor.

Exit 0 when nothing survives, 1 when something does (with `--fail-under P`: when the share
noticed is below P percent), a mutant could not be run or a workflow has check problems, 2 for usage errors and an
unavailable sandbox. Text lists the survivors first, each with what to record; `--format json`
prints the records; `--output-format github|sarif` prints the survivors as CI notes.
"""

from __future__ import annotations

import argparse
import json
import sys

from stepsmith.runner.app.case_run import default_jobs
from stepsmith.runner.app.mutants import MutantsRequest, run_mutants
from stepsmith.runner.cli.args import add_format, add_selection, add_switches
from stepsmith.runner.cli.mutants_formats import render

# workflow data reaches these lines (names, messages): print is the one display filter
from stepsmith.runner.display import safe_print as print
from stepsmith.runner.sandbox import sandbox_available, spares
from stepsmith.runner.settings import active


def register(sub) -> None:
    p = sub.add_parser("mutants", help="show which small changes to each step no fixture "
                       "notices (fixture strength)",
                       description="Change each step in small ways that matter in business "
                       "code (boundaries, arithmetic, rounding, constants, dropped effects) and "
                       "run the fixtures that reach each change in the sandbox; a change no "
                       "fixture notices survives.")
    add_selection(p, "only this step id", "only fixtures (and steps) whose id matches the "
                  "pytest expression")
    add_format(p)
    p.add_argument("--output-format", choices=("github", "sarif"), default=None,
                   help="print the survivors as GitHub notes or a SARIF log (level note) "
                   "instead of text")
    p.add_argument("--fail-under", type=float, default=None, metavar="PERCENT",
                   help="exit 1 only when fewer than PERCENT of the mutants are noticed "
                   "(default: when any survives)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also list every killed mutant and the fixture that noticed it")
    add_switches(p, no_cache="judge every mutant again (verdicts are cached in the user's "
                 "cache folder by the step's code and the fixtures' contents)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.fail_under is not None and not 0 <= args.fail_under <= 100:
        print("stepsmith mutants: --fail-under is a percentage from 0 to 100", file=sys.stderr)
        return 2
    if args.output_format and args.format == "json":
        print("stepsmith mutants: --format json and --output-format are exclusive",
              file=sys.stderr)
        return 2
    req = MutantsRequest(paths=args.paths or active().paths, steps=args.step,
                         keywords=args.keyword,
                         jobs=active().jobs if args.jobs is None else args.jobs,
                         cache=not args.no_cache)
    spared = _spares(req.jobs)
    bar = _Progress() if args.format == "text" and not args.output_format \
        and sys.stderr.isatty() else None
    try:
        if bar is None:
            report = run_mutants(req)
        else:
            with bar:
                report = run_mutants(req, on_progress=bar.update)
    finally:
        if spared:  # an in-process caller keeps no sandbox of ours
            spares.disable()
    if args.format == "json":
        sys.stdout.write(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
    elif args.output_format:
        sys.stdout.write(render(args.output_format, report))
        print(_summary_line(report), file=sys.stderr)
    else:
        _print_text(report, verbose=args.verbose)
    return _exit(report, args.fail_under)


def _exit(report, fail_under: float | None) -> int:
    if report.counts["error"] or report.blocked:
        return 1
    if fail_under is not None:
        return 1 if report.score < fail_under else 0
    return 1 if report.survived else 0


def _spares(jobs: int | None) -> bool:
    """Sandboxes started ahead of the first runs, as the editor keeps them (a mutants run is
    many short runs in a row); without them every run starts its own. True when enabled."""
    try:
        if sandbox_available()[0] and spares.current() is None:
            spares.enable(jobs or default_jobs())
            return True
    except Exception:  # noqa: BLE001  fresh sandboxes then; the run reports what is wrong
        pass
    return False


def _n(count: int, word: str) -> str:
    """`count` and `word`, plural unless it is one ("1 baseline run", "2 mutants")."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def _where(m) -> str:
    return f"{m.path}:{m.line}:{m.column + 1}"


def _change(m) -> str:
    if m.original:
        return f"{m.operator}: `{m.original}` -> `{m.replacement}`"
    return f"{m.operator}: `{m.replacement}` added"


def _print_text(report, *, verbose: bool) -> None:
    shown = 0
    for m in report.ordered():
        if m.status == "killed" and not verbose:
            continue
        shown += 1
        ran = f"{_n(m.fixtures_run, 'fixture')} ran"
        if m.status == "survived":
            print(f"survived  {_where(m)}  {_change(m)}  ({ran})")
            print(f"          {m.hint}")
        elif m.status == "error":
            print(f"error     {_where(m)}  {_change(m)}: {m.note}")
        else:
            note = f" ({m.note})" if m.note else ""
            print(f"{m.status:<9} {_where(m)}  {_change(m)}  by {m.killed_by}{note}")
    for o in report.opted_out:
        print(f"opted out {o.path}:{o.line}  ({_n(o.mutants, 'mutant')}"
              f", # stepsmith: no-mutate)  {o.text}")
    for note in report.notes:
        print(f"note: {note}")
    if shown:
        print()
    print(_summary_line(report, verbose=verbose))


def _summary_line(report, verbose: bool = True) -> str:
    c, s = report.counts, report.summary()
    killed = f"{c['killed']} killed" + ("" if verbose or not c["killed"] else " (-v lists them)")
    extra = f", {report.refused} refused by the validator" if report.refused else ""
    cached = sum(m.cached for m in report.mutants)
    tail = " (cancelled)" if report.cancelled else ""
    return (f"{_n(len(report.mutants), 'mutant')}: {killed}, {c['survived']} survived, "
            f"{_n(c['timeout'], 'timeout')}, {_n(c['error'], 'error')}{extra}; "
            f"{report.score:.1f}% noticed in {report.seconds:.2f}s "
            f"({_n(s['baseline_runs'], 'baseline run')}, {_n(s['fixture_runs'], 'mutant run')}, "
            f"{cached} from the cache){tail}")


class _Progress:
    def __init__(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
        from stepsmith.runner.cli.console import SafeConsole

        self.bar = Progress(TextColumn("[bold]judging mutants"), BarColumn(),
                            MofNCompleteColumn(), transient=True,
                            console=SafeConsole(stderr=True, highlight=False))
        self.task = self.bar.add_task("mutants", total=None)

    def update(self, done: int, total: int) -> None:
        self.bar.update(self.task, completed=done, total=total)

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc)
