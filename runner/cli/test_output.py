"""`stepsmith test` output beyond the summary: -v lines, --durations, the -x/--maxfail note."""

from __future__ import annotations

import json
from pathlib import Path

from rich.markup import escape
from stepsmith.runner.cli.test_loop import print_loop
from stepsmith.runner.cli.test_report import junit_xml, print_text
from stepsmith.runner.coverage import report
from stepsmith.runner.safeio import write_atomic

TAGS = {"passed": "[green]PASSED[/]", "failed": "[red]FAILED[/]", "error": "[magenta]ERROR[/]",
        "recorded": "[yellow]RECORDED[/]"}


def print_verbose(console, results) -> None:
    """One line per fixture, in collection order: outcome, node id, time."""
    for r in results:
        console.print(f"{TAGS.get(r.outcome, r.outcome)} {escape(r.case.id)} "
                      f"[dim]({r.duration_ms:.0f} ms)[/]")
    if results:
        console.print()


def print_durations(console, results, n: int) -> None:
    ran = sorted(results, key=lambda r: r.duration_ms, reverse=True)
    shown = ran if n == 0 else ran[:n]
    console.print(f"slowest {len(shown) if n else 'all'} fixtures" if n == 0
                  else f"slowest {n} fixtures")
    for r in shown:
        console.print(f"  {escape(r.case.id)}  {r.duration_ms:.0f} ms")


def print_stopped(console, maxfail: int | None, not_run: int, failed: int | None = None) -> None:
    """`failed`: how many failed or errored in fact; fixtures already running when the limit
    was reached finish and count (as pytest-xdist's), so it may exceed `maxfail`."""
    failed = maxfail if failed is None else failed
    plural = "s" if (failed or 0) != 1 else ""
    flag = "-x" if maxfail == 1 else f"--maxfail {maxfail}"
    more = (f"; {failed - maxfail} more finished while stopping"
            if failed and maxfail and failed > maxfail else "")
    console.print(f"[red]stopped after {failed} failure{plural}[/] ({flag}{more}): "
                  f"{not_run} fixture(s) not run")


def write_reports(err, args, outcome) -> tuple[bool, list[str]]:
    """Write --junit-xml, --coverage-json, --lcov (atomically): (False when one failed, the
    warnings to repeat in the summary), each warning printed on stderr as well."""

    def junit():
        return junit_xml(outcome.results, outcome.seconds)

    def cov_json():
        return json.dumps(report.to_json(outcome.coverage()), indent=2) + "\n"

    notes: list[str] = []

    def lcov():
        files = outcome.coverage()
        left_out = report.lcov_left_out(files)
        if left_out:
            shown = ", ".join(p.replace("\n", "\\n").replace("\r", "\\r") for p in left_out)
            notes.append(f"warning: --lcov: left out {len(left_out)} file"
                         f"{'' if len(left_out) == 1 else 's'} whose path LCOV cannot hold "
                         f"(a line break): {shown}")
        return report.lcov(files)

    ok = True
    for target, render in ((args.junit_xml, junit), (args.coverage_json, cov_json),
                           (args.lcov, lcov)):
        if not target:
            continue
        try:
            write_atomic(Path(target), render())
        except OSError as exc:
            err.print(f"stepsmith test: cannot write {target}: {exc.strerror or exc}",
                      markup=False)
            ok = False
    for note in notes:
        err.print(note, markup=False)
    return ok, notes


def print_outcome(out, err, outcome, args) -> None:
    """What `stepsmith test` prints after a run (and `--watch` after each)."""
    for note in outcome.selection.notes:
        out.print(note, markup=False)
    if args.verbose:
        print_verbose(out, outcome.results)
    if not outcome.results:
        where = ", ".join(w.shown for w in outcome.selection.workflows)
        hint = "" if outcome.loop.waiting else " (record one with `stepsmith record`)"
        out.print(f"no fixture ran: no fixtures found in {where}{hint}", markup=False)
    else:
        print_text(out, outcome, show_stdout=args.show_stdout, table_all=args.table)
    if args.durations is not None:
        print_durations(out, outcome.results, args.durations)
    if outcome.traced:
        out.print(report.text(outcome.coverage()), markup=False)
    sw = outcome.selection.stepwise
    if sw is not None and sw.start:
        failed = sum(r.outcome in ("failed", "error") for r in outcome.results)
        more = failed - (2 if sw.skip else 1)  # already running when it stopped (-j N)
        out.print(f"[red]stopped at the {'second' if sw.skip else 'first'} failure[/] (--sw"
                  f"{f'; {more} more finished while stopping' if more > 0 else ''}): "
                  f"{outcome.not_run} fixture(s) not run; the next `stepsmith test --sw` starts "
                  f"from {escape(sw.start)}")
    elif outcome.not_run:
        failed = sum(r.outcome in ("failed", "error") for r in outcome.results)
        print_stopped(out, args.maxfail, outcome.not_run, failed)
    print_loop(outcome.loop, out, err)
