"""`stepsmith test [PATH...]`: run every fixture in parallel sandboxes and compare.

Exit 0 when every fixture passed (or was served from its recording), 1 on any failure or
error (including workflows with check problems, with or without fixtures), 2 on usage/internal
errors or when the sandbox is unavailable (never runs anything unsandboxed). A clean workflow
without any fixture exits 0 with "no fixtures found" (unlike pytest's 5: a new workflow is not
a broken one); `--step`/`-k` selecting nothing is a usage error (2).
"""

from __future__ import annotations

import argparse
import os
import sys


def register(sub) -> None:
    p = sub.add_parser("test", help="run the recorded fixtures of workflows in sandboxes",
                       description="Run every fixture (fixtures/<step>/<case>.json) of the "
                       "workflows under PATH in fresh sandboxes and compare with the expected "
                       "results.")
    p.add_argument("paths", nargs="*", default=None, metavar="PATH",
                   help="workflow folders or manifests, folders to search, a fixture file, a "
                   "step file, or a node id PATH::step[::case] (default: the configured "
                   "paths, else .)")
    p.add_argument("--step", action="append", default=[], metavar="STEP",
                   help="only fixtures of this step id (repeatable: any of them)")
    p.add_argument("-k", dest="keyword", action="append", default=[], metavar="EXPRESSION",
                   help="only fixtures whose id (workflow::step::case) matches the pytest "
                   "expression, e.g. 'add or double', 'not boom' (repeatable: any of them)")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="parallel sandboxes (default: number of CPUs)")
    p.add_argument("--lf", "--last-failed", dest="last_failed", action="store_true",
                   help="run only the fixtures that failed last time (all when none did)")
    p.add_argument("-x", "--exitfirst", dest="maxfail", action="store_const", const=1,
                   help="stop after the first failure or error")
    p.add_argument("--maxfail", type=int, dest="maxfail", metavar="N",
                   help="stop after N failures or errors")
    p.add_argument("--durations", type=int, default=None, metavar="N",
                   help="show the N slowest fixtures (0: all)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="list every fixture with its outcome and time")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--junit-xml", metavar="FILE", help="also write a JUnit XML report")
    p.add_argument("--live", action="store_true",
                   help="run public_egress steps against the network instead of serving "
                   "their recordings (never retried)")
    p.add_argument("--update", action="store_true",
                   help="accept every changed output as the fixture's new expectation")
    p.add_argument("-s", dest="show_stdout", action="store_true",
                   help="show the captured stdout of passing fixtures too")
    p.add_argument("--strict", action="store_true",
                   help="stale wired fixtures fail the run instead of warning")
    p.set_defaults(func=run)


def junit_xml(results, total_seconds: float) -> str:
    import xml.etree.ElementTree as ET

    failures = sum(r.outcome == "failed" for r in results)
    errors = sum(r.outcome == "error" for r in results)
    skipped = sum(r.outcome == "recorded" for r in results)
    suites = ET.Element("testsuites")
    suite = ET.SubElement(suites, "testsuite", name="stepsmith", tests=str(len(results)),
                          failures=str(failures), errors=str(errors), skipped=str(skipped),
                          time=f"{total_seconds:.3f}")
    for r in results:
        c = r.case
        tc = ET.SubElement(suite, "testcase",
                           classname=f"{c.workflow.shown}::{c.step_id}".replace("/", "."),
                           name=c.case, time=f"{r.duration_ms / 1000:.3f}")
        if c.path:
            tc.set("file", c.shown_path)
        text = r.failure_text()
        if r.outcome == "failed":
            first = r.differences[0] if r.differences else None
            el = ET.SubElement(tc, "failure", message=str(first) if first else "mismatch",
                               type="mismatch")
            el.text = text
        elif r.outcome == "error":
            el = ET.SubElement(tc, "error", message=(r.messages or ["error"])[0][:500],
                               type="error")
            el.text = text
        elif r.outcome == "recorded":
            ET.SubElement(tc, "skipped", message=r.messages[0] if r.messages else "recorded")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode")


def _print_text(console, results, workflows, seconds: float, without_fixtures=(),
                not_run: int = 0, show_stdout: bool = False) -> None:
    """`without_fixtures`: display names of workflows that have no fixture at all (not merely
    none selected by --step / -k)."""
    from rich.markup import escape
    from rich.syntax import Syntax
    from rich.table import Table
    from stepsmith.runner.cli.loopview import print_differences, print_stdout
    from stepsmith.runner.fixtures.compare import unified_diff

    blocked: dict[str, list] = {}
    for r in results:
        if r.outcome == "error" and r.case.blocked:
            blocked.setdefault(r.case.workflow.shown, []).append(r)
    for name, rs in blocked.items():
        lw = rs[0].case.workflow
        n = sum(1 for r in rs if r.case.fixture is not None or r.case.path)
        cannot = f"so its {n} fixture(s) cannot run" if n else "and it has no fixtures"
        console.print(f"[bold magenta]ERROR[/]  {escape(name)}: the workflow has check problems, "
                      f"{cannot}:")
        for line in lw.error_lines():
            console.print("  " + escape(line))
        console.print()
    for r in results:
        captured = (r.result or {}).get("stdout")
        if r.outcome == "passed" and show_stdout and captured:
            console.print(f"[green]PASSED[/] {escape(r.case.id)}")
            print_stdout(console, captured)
            console.print()
        if r.outcome not in ("failed", "error") or r.case.blocked:
            continue
        tag = "[bold red]FAILED[/]" if r.outcome == "failed" else "[bold magenta]ERROR[/] "
        console.print(f"{tag} {escape(r.case.id)}  [dim]{escape(r.case.shown_path)}[/]")
        print_differences(console, r.differences)
        for m in r.messages:
            console.print("  " + escape(m))
        for label, exp, act in r.big:
            console.print(Syntax(unified_diff(exp, act, label), "diff", theme="ansi_dark",
                                 background_color="default"))
        print_stdout(console, captured)
        console.print()
    table = Table(title="stepsmith test", title_justify="left")
    for col in ("workflow", "passed", "recorded", "failed", "errors"):
        table.add_column(col, justify="left" if col == "workflow" else "right")
    per: dict[str, list[int]] = {w.shown: [0, 0, 0, 0] for w in workflows
                                 if w.shown in without_fixtures}
    for r in results:
        row = per.setdefault(r.case.workflow.shown, [0, 0, 0, 0])
        row[("passed", "recorded", "failed", "error").index(r.outcome)] += 1
    for name, row in per.items():
        cells = [str(x) if x else "[dim]0[/]" for x in row]
        if not any(row):
            name_cell = f"{escape(name)} [dim](no fixtures)[/]"
        else:
            name_cell = escape(name)
        table.add_row(name_cell, *cells)
    console.print(table)
    counts = [sum(r.outcome == o for r in results) for o in ("passed", "recorded", "failed",
                                                              "error")]
    style = "green" if not (counts[2] or counts[3]) else "red"
    parts = [f"{counts[0]} passed"]
    if counts[1]:
        parts.append(f"{counts[1]} recorded (served from recording, not executed)")
    parts.append(f"{counts[2]} failed")
    parts.append(f"{counts[3]} errors")
    if not_run:
        parts.append(f"{not_run} not run")
    executed = _executed(results)
    # a rate only means something when sandboxes ran
    rate = f" ({executed / seconds:.1f} fixtures/s)" if executed and seconds > 0 else ""
    console.print(f"[{style}]{', '.join(parts)}[/] in {seconds:.2f}s{rate}")
    empty = [w.shown for w in workflows if w.shown in without_fixtures]
    if empty:
        console.print(f"[dim]no fixtures found for: {escape(', '.join(empty))} "
                      "(record one with `stepsmith record`)[/]")


def _executed(results) -> int:
    """Fixtures that actually ran in a sandbox (not served from a recording, not refused
    before running)."""
    return sum(1 for r in results if r.outcome in ("passed", "failed")
               or (r.outcome == "error" and r.result is not None
                   and r.result.get("status") != "unavailable"))


def run(args: argparse.Namespace) -> int:
    import json
    import time

    from rich.console import Console
    from stepsmith.runner.fixtures.invoke import InvokeError, sandbox_status
    from stepsmith.runner.fixtures.suite import load, run_cases

    from stepsmith.runner.settings import active

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    args.paths = args.paths or active().paths
    if args.jobs is None:
        args.jobs = active().jobs
    if args.jobs is not None and args.jobs < 1:
        err.print("stepsmith test: -j must be at least 1")
        return 2
    if args.maxfail is not None and args.maxfail < 1:
        err.print("stepsmith test: --maxfail must be at least 1", markup=False)
        return 2
    if args.durations is not None and args.durations < 0:
        err.print("stepsmith test: --durations must be 0 (all) or more", markup=False)
        return 2
    from stepsmith.runner.fixtures.selection import (
        SelectionError,
        compile_keywords,
        manifests_of,
        parse_target,
        select_cases,
    )

    try:
        targets = [parse_target(p) for p in args.paths]
        keywords = compile_keywords(args.keyword)
    except SelectionError as exc:
        err.print(f"stepsmith test: {exc}", markup=False)
        return 2
    try:
        workflows, cases = load(manifests_of(targets))
    except InvokeError as exc:
        err.print(f"stepsmith test: {exc}")
        return 2
    if not workflows:
        err.print(f"stepsmith test: no workflow manifests under {' '.join(args.paths)}")
        return 2
    known = sorted({s for w in workflows for s in w.step_ids})
    for step_id in args.step:
        if step_id not in known:
            from stepsmith.runner.fixtures.invoke import unknown_step_message

            where = ", ".join(w.shown for w in workflows)
            err.print(f"stepsmith test: {unknown_step_message(step_id, known, where)}",
                      markup=False)
            return 2
    try:
        selected = select_cases(cases, targets, args.step, keywords)
    except SelectionError as exc:
        err.print(f"stepsmith test: {exc}", markup=False)
        return 2
    narrowed = args.step or args.keyword or any(t.narrowed for t in targets)
    if not selected and narrowed:
        what = " and ".join([f"--step {s}" for s in args.step] + [f"-k {k}" for k in args.keyword]
                            + [t.shown for t in targets if t.narrowed])
        err.print(f"stepsmith test: no fixtures matched {what}", markup=False)
        return 2
    notes = []
    if args.last_failed:
        from stepsmith.runner.fixtures import lastfailed

        again = lastfailed.only_failed(selected)
        if again:
            notes.append(f"run the {len(again)} fixture(s) that failed last time (--lf)")
            selected = again
        else:
            notes.append(f"no previously failed fixtures: running all {len(selected)} (--lf)")
    if args.junit_xml:  # fail before running anything, not after
        problem = _unwritable(args.junit_xml)
        if problem:
            err.print(f"stepsmith test: cannot write {args.junit_xml}: {problem}", markup=False)
            return 2
    ok, why = sandbox_status()
    if not ok and any(c.fixture is not None for c in selected):
        err.print(f"stepsmith test: the sandbox is unavailable: {why}")
        err.print("Refusing to run step code outside the sandbox.")
        return 2

    progress = None
    task = None
    if args.format == "text" and sys.stderr.isatty() and selected:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        progress = Progress(TextColumn("[bold]testing fixtures"), BarColumn(),
                            MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                            transient=True)
        task = progress.add_task("fixtures", total=len(selected))

    def done(_r) -> None:
        if progress is not None:
            progress.advance(task)

    t0 = time.perf_counter()
    if progress is not None:
        with progress:
            results = run_cases(selected, jobs=args.jobs, live=args.live, on_done=done,
                                maxfail=args.maxfail)
    else:
        results = run_cases(selected, jobs=args.jobs, live=args.live, maxfail=args.maxfail)
    seconds = time.perf_counter() - t0
    from stepsmith.runner.fixtures import lastfailed

    lastfailed.update(results)
    not_run = len(selected) - len(results)

    from stepsmith.runner.cli.test_loop import after_run

    loop = after_run(results, workflows, update=args.update, strict=args.strict)
    junit_failed = False
    if args.junit_xml:
        try:
            from pathlib import Path

            from stepsmith.runner.cli.record import write_atomic

            write_atomic(Path(args.junit_xml), junit_xml(results, seconds))
        except OSError as exc:  # the results are still printed below
            err.print(f"stepsmith test: cannot write {args.junit_xml}: {exc.strerror or exc}",
                      markup=False)
            junit_failed = True
    counts = {o: sum(r.outcome == o for r in results)
              for o in ("passed", "recorded", "failed", "error")}
    if args.format == "json":
        doc = {
            "results": [r.to_json() for r in results],
            "summary": {**counts, "total": len(results), "not_run": not_run,
                        "executed": _executed(results),
                        "seconds": round(seconds, 3),
                        "fixtures_per_second": round(_executed(results) / seconds, 2)
                        if seconds > 0 and _executed(results) else None},
            "workflows": [{"path": w.shown, "ok": w.ok, "problems": w.error_lines()}
                          for w in workflows],
        }
        doc.update(loop.to_json())
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        out = Console(highlight=False, soft_wrap=True)
        for note in notes:
            out.print(note, markup=False)
        if args.verbose:
            from stepsmith.runner.cli.test_output import print_verbose

            print_verbose(out, results)
        if not results:
            where = ", ".join(w.shown for w in workflows)
            out.print(f"no fixtures found in {where}: nothing to test "
                      "(record one with `stepsmith record`)")
        else:
            having = {c.workflow.shown for c in cases}
            _print_text(out, results, workflows, seconds,
                        {w.shown for w in workflows if w.shown not in having}, not_run,
                        show_stdout=args.show_stdout)
        from stepsmith.runner.cli.test_output import print_durations, print_stopped

        if args.durations is not None:
            print_durations(out, results, args.durations)
        if not_run:
            print_stopped(out, args.maxfail, not_run)
        loop.print(out, err)
    if loop.failed(counts):
        return 1
    return 2 if junit_failed else 0


def _unwritable(path: str) -> str | None:
    """Why `path` cannot be written as a report file, or None."""
    if os.path.isdir(path):
        return "it is a folder"
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"no such folder {os.path.dirname(path) or '.'}"
    if not os.access(parent, os.W_OK):
        return f"folder {os.path.dirname(path) or '.'} is not writable"
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return "permission denied"
    return None

