"""`stepsmith reach [PATH]`: what each step is permitted to reach, for every workflow under PATH.

Every step is listed, including the ones that reach nothing. The table is built from the
manifest's declarations, not from the code: "This is what each step is permitted to reach,
not a review of what its code does."
Exit status: 0 shown, 1 a manifest could not be read as a workflow, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from io import StringIO
from pathlib import Path

from stepsmith.runner.app.reach import reach_report
from stepsmith.runner.cli.args import add_format, add_switches
from stepsmith.runner.cli.reach_diff import md_plain, run_diff

# workflow data reaches these lines (names, messages): print is the one display filter
from stepsmith.runner.display import display_text, json_text
from stepsmith.runner.display import safe_print as print
from stepsmith.runner.settings import active


def register(sub) -> None:
    p = sub.add_parser(
        "reach",
        help="show what each step is permitted to reach",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", nargs="?", default=None, metavar="PATH",
                   help="a folder (workflows found below it, else the one above it), a "
                   "manifest (default: the configured paths, else .)")
    add_switches(p, explain="also show each step's plain-language explanation")
    add_format(p, ("text", "json", "markdown"),
               "output format (markdown: for a pull-request comment)")
    p.add_argument("--diff", nargs="?", const="HEAD", default=None, metavar="REV",
                   help="show only what changed since the git revision REV (default HEAD): "
                   "steps added or removed, network, connections, sources, effects")
    add_switches(p, fail_on_widen="with --diff: exit 1 when a change widens what a step can "
                 "reach")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.diff is not None and args.path is None and os.path.exists(args.diff):
        # `reach --diff PATH`: PATH is the folder and REV the default (as `git diff PATH`);
        # a revision that is also a file name is given as `--diff=REV PATH`
        args.path, args.diff = args.diff, "HEAD"
    if args.path is None:
        args.path = active().paths[0]
    path = Path(args.path)
    if not path.exists():
        print(f"stepsmith reach: {args.path}: no such file or folder", file=sys.stderr)
        return 2
    if path.is_file() and path.suffix.lower() not in (".yaml", ".yml"):
        print(f"stepsmith reach: {args.path}: not a workflow manifest (give the workflow folder "
              "or its workflow.yaml / *.workflow.yaml)", file=sys.stderr)
        return 2
    if args.diff is not None:
        return run_diff(args, path)
    if args.fail_on_widen:
        print("stepsmith reach: --fail-on-widen needs --diff", file=sys.stderr)
        return 2

    report = reach_report([path])
    if not report.workflows:
        print(f"stepsmith reach: no workflow manifests found under {args.path}", file=sys.stderr)
        return 2
    for w in report.unreadable:
        shown = os.path.relpath(w.manifest) if not w.manifest.is_absolute() else str(w.manifest)
        print(f"stepsmith reach: {shown} is not a valid workflow; run `stepsmith check`:",
              file=sys.stderr)
        for pr in w.problems[:10]:
            print(f"  {shown}:{pr.span.line}:{pr.span.column + 1}: {pr.code} {pr.message}",
                  file=sys.stderr)
    status = 1 if report.unreadable else 0
    if args.format == "json":
        sys.stdout.write(json_text(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
                         + "\n")
        return status
    if args.format == "markdown":
        sys.stdout.write(display_text(markdown(report)))
        return status

    from stepsmith.runner.cli.console import SafeConsole as Console

    # a terminal gets its own width (COLUMNS wins, as everywhere); a pipe or CI log without
    # COLUMNS gets room for the whole table
    fixed = sys.stdout.isatty() or os.environ.get("COLUMNS", "").isdigit()
    console = Console(highlight=False, width=None if fixed else 160)
    shown_any = False
    for w in report.workflows:
        if w.error is not None:
            continue
        shown_any = True
        print_reach(console, w, explain=args.explain)
        console.print(_wrap(f"Steps run on {w.python.summary()}", console.width), markup=False)
        if w.problems:
            console.print(f"[yellow]{len(w.problems)} problem(s) in this manifest; "
                          "run `stepsmith check`.[/yellow]")
        console.print()
    if shown_any:
        console.print(_wrap(report.sentence, console.width))
    return status


def markdown(report) -> str:
    """The report as Markdown (a pull-request comment, a wiki page): one table per workflow.
    Every cell is workflow data, shown as plain text (reach_diff.md_plain)."""

    out = ["### What each step can reach", ""]
    for w in report.workflows:
        out += [f"**{md_plain(w.workflow or '?')}** — {md_plain(str(w.manifest))}", ""]
        if w.error is not None:
            out += [f"> not a valid workflow: {md_plain(w.error)}", ""]
            continue
        out += [f"Steps run on {md_plain(w.python.summary())}.", ""]
        out += ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        out += ["| " + " | ".join(md_plain(c) for c in _cells(r)) + " |" for r in w.steps]
        out.append("")
    out += [f"_{report.sentence}_", ""]
    return "\n".join(out)


COLUMNS = ("Step", "Code", "Network", "Connections", "Sources read", "Effects")


def _cells(r) -> list[str]:
    """One step record's cells: sources with where they come from, effects with their
    target."""
    if r.reaches_nothing:
        return [r.step_id, r.code, "none", "nothing", "nothing", "nothing"]
    sources = [r.source_text(s) for s in r.sources]
    effects = [r.effect_text(e) for e in r.effects]
    return [r.step_id, r.code, r.network_label, ", ".join(r.connections) or "nothing",
            ", ".join(sources) or "nothing", ", ".join(effects) or "nothing"]


def _wrap(text: str, width: int, indent: str = "") -> str:
    """Wrap between words only: a word is never split, even one wider than the line."""

    return "\n".join(textwrap.wrap(text, width=max(20, width), initial_indent=indent,
                                    subsequent_indent=indent, break_long_words=False,
                                    break_on_hyphens=False)) or indent


def print_reach(console, w, *, explain: bool = False) -> None:
    """The table when it fits the console's width, otherwise one block per step; with
    `explain`, each step's explanation (wrapped between words)."""

    from rich.markup import escape
    from rich.table import Table
    from stepsmith.runner.cli.console import SafeConsole as Console

    rows = [(r, _cells(r)) for r in w.steps]
    title = f"{w.workflow} v{w.version} — {w.manifest}"
    width = console.width
    words = {w for _r, cells in rows for c in cells for w in c.split()}

    def table(wrap: bool) -> Table:
        t = Table(title=escape(title), title_justify="left", show_lines=False)
        for col in COLUMNS:
            t.add_column(col, no_wrap=not wrap or col in ("Step", "Code", "Network"), overflow="fold")
        for _r, cells in rows:
            t.add_row(*(f"[dim]{c}[/dim]" if c == "nothing" else escape(c) for c in cells))
        return t

    for wrap in (False, True):  # the first that fits without cutting a word
        candidate = table(wrap)
        probe = Console(file=StringIO(), width=width, highlight=False)
        probe.print(candidate)
        text = probe.file.getvalue()
        tokens = {t.strip("│┃") for t in text.split()}
        lines_fit = all(len(line.rstrip()) <= width for line in text.splitlines())
        if lines_fit and words <= tokens | set(title.split()):
            console.print(candidate)
            if explain:
                for r, _cells_ in rows:
                    console.print(_wrap(f"{r.step_id}: {r.explanation}",
                                        width), markup=False)
            return
    console.print(_wrap(title, width), markup=False)
    labels = [c.lower() for c in COLUMNS[2:]]
    pad = max(len(lb) for lb in labels + ["explanation"]) + 2
    for r, cells in rows:
        console.print(_wrap(f"{cells[0]}  {cells[1]}", width), markup=False)
        extra = [("explanation", r.explanation)] if explain else []
        for label, value in list(zip(labels, cells[2:])) + extra:
            lines = _wrap(str(value), width - 2 - pad).splitlines() or [""]
            console.print("  " + label.ljust(pad) + lines[0], markup=False)
            for line in lines[1:]:
                console.print("  " + " " * pad + line, markup=False)
