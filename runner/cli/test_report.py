"""`stepsmith test` text and JUnit rendering of a typed SuiteOutcome (runner/app/cases.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from stepsmith.runner.display import display_text as x
from stepsmith.runner.fixtures.compare import unified_diff


def junit_xml(results, total_seconds: float) -> str:
    """JUnit XML as Jenkins' junit-10.xsd has it (what Jenkins and GitLab read; pytest's
    default xunit2 family): the root repeats the suite's counts, a test case carries no
    `file` (the fixture's path is in the failure text). Every XML 1.0 parser reads it: names,
    paths, messages and failure text are workflow data, passed through the display filter
    (no control characters, surrogates or non-characters; ElementTree would write them raw)."""

    failures = sum(r.outcome == "failed" for r in results)
    errors = sum(r.outcome == "error" for r in results)
    skipped = sum(r.outcome == "recorded" for r in results)
    suites = ET.Element("testsuites", name="stepsmith", tests=str(len(results)),
                        failures=str(failures), errors=str(errors), time=f"{total_seconds:.3f}")
    suite = ET.SubElement(suites, "testsuite", name="stepsmith", tests=str(len(results)),
                          failures=str(failures), errors=str(errors), skipped=str(skipped),
                          time=f"{total_seconds:.3f}")
    for r in results:
        c = r.case
        tc = ET.SubElement(suite, "testcase",
                           classname=x((f"{c.workflow.shown}::{c.step_id}" if c.step_id
                                        else c.workflow.shown).replace("/", ".")),
                           name=x(c.case), time=f"{r.duration_ms / 1000:.3f}")
        text = x(r.failure_text())
        if r.outcome == "failed":
            first = r.differences[0] if r.differences else None
            el = ET.SubElement(tc, "failure", message=x(first) if first else "mismatch",
                               type="mismatch")
            el.text = text
        elif r.outcome == "error":
            el = ET.SubElement(tc, "error", message=x((r.messages or ["error"])[0][:500]),
                               type="error")
            el.text = text
        elif r.outcome == "recorded":
            ET.SubElement(tc, "skipped", message=x(r.messages[0] if r.messages else "recorded"))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode")


TABLE_MAX = 10  # more workflows than this: the table lists only those that did not pass


def print_text(console, outcome, show_stdout: bool = False, table_all: bool = False) -> None:
    """Failures with their structured differences, the per-workflow table, the summary line.
    Workflows without any fixture at all (not merely none selected by --step / -k) are
    listed as such."""
    results, workflows = outcome.results, outcome.selection.workflows
    seconds, not_run = outcome.seconds, outcome.not_run
    without_fixtures = outcome.selection.without_fixtures
    from rich.markup import escape
    from rich.table import Table
    from stepsmith.runner.cli.loopview import print_differences, print_stdout

    for r in results:  # each cause once, with the fixtures it blocks (app/blocking.py)
        if r.outcome == "error" and r.case.blocked and r.case.problems:
            head, *lines = r.case.problems
            console.print(f"[bold magenta]ERROR[/]  {escape(r.case.workflow.shown)}: "
                          f"{escape(head)}")
            for line in lines:
                console.print(escape(line))
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
            from rich.syntax import Syntax  # (pygments: only for a big difference)

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
    hidden = 0
    if len(per) > TABLE_MAX and not table_all:  # a long table would bury the summary line
        shown = {n: r for n, r in per.items() if r[2] or r[3] or not any(r)}
        hidden = len(per) - len(shown)
        per = shown
    for name, row in per.items():
        cells = [str(x) if x else "[dim]0[/]" for x in row]
        if not any(row):
            name_cell = f"{escape(name)} [dim](no fixtures)[/]"
        else:
            name_cell = escape(name)
        table.add_row(name_cell, *cells)
    if per:
        console.print(table)
    if hidden:
        console.print(f"[dim]{hidden} more workflow(s) passed (--table lists every one)[/]")
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
    executed, ran = outcome.executed, outcome.run_seconds
    # the time counts collection (pytest's session time); the sandboxes' share and the rate
    # only mean something when sandboxes ran
    rate = (f" (sandboxes {ran:.2f}s, {executed / ran:.1f} fixtures/s)"
            if executed and ran > 0 else "")
    console.print(f"[{style}]{', '.join(parts)}[/] in {seconds:.2f}s{rate}")
    empty = [w.shown for w in workflows if w.shown in without_fixtures]
    if empty:
        console.print(f"[dim]no fixtures found for: {escape(', '.join(empty))} "
                      "(record one with `stepsmith record`)[/]")
