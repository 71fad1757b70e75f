"""`stepsmith test [PATH...]`: run every fixture in parallel sandboxes and compare.

Exit 0 when every fixture passed (or was served from its recording), 1 on any failure or
error (including workflows with check problems), 2 on usage/internal errors or when the
sandbox is unavailable (never runs anything unsandboxed).
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
    p.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                   help="workflow folders, manifests or folders to search (default: .)")
    p.add_argument("--step", help="only fixtures of this step id")
    p.add_argument("-k", dest="keyword", metavar="NAME",
                   help="only fixtures whose id (workflow::step::case) contains NAME")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="parallel sandboxes (default: number of CPUs)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--junit-xml", metavar="FILE", help="also write a JUnit XML report")
    p.add_argument("--live", action="store_true",
                   help="run public_egress steps against the network instead of serving "
                   "their recordings (never retried)")
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


def _print_text(console, results, workflows, seconds: float) -> None:
    from rich.markup import escape
    from rich.syntax import Syntax
    from rich.table import Table
    from stepsmith.runner.fixtures.compare import unified_diff

    blocked: dict[str, list] = {}
    for r in results:
        if r.outcome == "error" and r.case.blocked:
            blocked.setdefault(r.case.workflow.shown, []).append(r)
    for name, rs in blocked.items():
        lw = rs[0].case.workflow
        n = sum(1 for r in rs if r.case.fixture is not None or r.case.path)
        console.print(f"[bold magenta]ERROR[/]  {escape(name)}: the workflow has check problems, "
                      f"so its {n} fixture(s) cannot run:")
        for line in lw.error_lines():
            console.print("  " + escape(line))
        console.print()
    for r in results:
        if r.outcome not in ("failed", "error") or r.case.blocked:
            continue
        tag = "[bold red]FAILED[/]" if r.outcome == "failed" else "[bold magenta]ERROR[/] "
        console.print(f"{tag} {escape(r.case.id)}  [dim]{escape(r.case.shown_path)}[/]")
        for d in r.differences:
            console.print(f"  [yellow]{escape(d.path)}[/]: {escape(d.message)}")
        for m in r.messages:
            console.print("  " + escape(m))
        for label, exp, act in r.big:
            console.print(Syntax(unified_diff(exp, act, label), "diff", theme="ansi_dark",
                                 background_color="default"))
        console.print()
    table = Table(title="stepsmith test", title_justify="left")
    for col in ("workflow", "passed", "recorded", "failed", "errors"):
        table.add_column(col, justify="left" if col == "workflow" else "right")
    per: dict[str, list[int]] = {}
    for r in results:
        row = per.setdefault(r.case.workflow.shown, [0, 0, 0, 0])
        row[("passed", "recorded", "failed", "error").index(r.outcome)] += 1
    for name, row in per.items():
        table.add_row(escape(name), *(str(x) if x else "[dim]0[/]" for x in row))
    console.print(table)
    n = len(results)
    counts = [sum(r.outcome == o for r in results) for o in ("passed", "recorded", "failed",
                                                              "error")]
    style = "green" if not (counts[2] or counts[3]) else "red"
    rate = n / seconds if seconds > 0 else 0.0
    parts = [f"{counts[0]} passed"]
    if counts[1]:
        parts.append(f"{counts[1]} recorded (served from recording, not executed)")
    parts.append(f"{counts[2]} failed")
    parts.append(f"{counts[3]} errors")
    console.print(f"[{style}]{', '.join(parts)}[/] in {seconds:.2f}s "
                  f"({rate:.1f} fixtures/s)")


def _run(args: argparse.Namespace) -> int:
    import json
    import time

    from rich.console import Console
    from stepsmith.runner.fixtures.invoke import InvokeError, sandbox_status
    from stepsmith.runner.fixtures.suite import discover, run_cases, select

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if args.jobs is not None and args.jobs < 1:
        err.print("stepsmith test: -j must be at least 1")
        return 2
    for p in args.paths:
        if not os.path.exists(p):
            err.print(f"stepsmith test: {p}: no such file or directory")
            return 2
    try:
        workflows, cases = discover(args.paths)
    except InvokeError as exc:
        err.print(f"stepsmith test: {exc}")
        return 2
    if not workflows:
        err.print(f"stepsmith test: no workflow manifests under {' '.join(args.paths)}")
        return 2
    selected = select(cases, args.step, args.keyword)
    if not selected and (args.step or args.keyword):
        err.print("stepsmith test: no fixtures matched the selection")
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
            results = run_cases(selected, jobs=args.jobs, live=args.live, on_done=done)
    else:
        results = run_cases(selected, jobs=args.jobs, live=args.live)
    seconds = time.perf_counter() - t0

    if args.junit_xml:
        try:
            with open(args.junit_xml, "w", encoding="utf-8") as fh:
                fh.write(junit_xml(results, seconds))
        except OSError as exc:
            err.print(f"stepsmith test: cannot write {args.junit_xml}: {exc}")
            return 2
    counts = {o: sum(r.outcome == o for r in results)
              for o in ("passed", "recorded", "failed", "error")}
    if args.format == "json":
        doc = {
            "results": [r.to_json() for r in results],
            "summary": {**counts, "total": len(results), "seconds": round(seconds, 3),
                        "fixtures_per_second": round(len(results) / seconds, 2)
                        if seconds > 0 else None},
            "workflows": [{"path": w.shown, "ok": w.ok, "problems": w.error_lines()}
                          for w in workflows],
        }
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        out = Console(highlight=False, soft_wrap=True)
        if not results:
            out.print("no fixtures found")
        else:
            _print_text(out, results, workflows, seconds)
    return 1 if counts["failed"] or counts["error"] else 0


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except (KeyboardInterrupt, BrokenPipeError):
        raise
    except Exception as exc:  # noqa: BLE001  a bug of ours: exit 2, one clear line
        sys.stderr.write(f"stepsmith test: internal error: {type(exc).__name__}: {exc}\n")
        return 2
