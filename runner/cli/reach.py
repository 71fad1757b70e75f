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
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser(
        "reach",
        help="show what each step is permitted to reach",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", nargs="?", default=".", metavar="PATH",
                   help="a folder (workflows found below it) or a manifest (default: .)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=run)


def _manifests(path: Path) -> list[Path]:
    from stepsmith.runner.manifest import find_manifests

    if path.is_file():
        return [path]
    return find_manifests([path])


def run(args) -> int:
    from stepsmith.runner.manifest import parse_manifest, read_manifest_text
    from stepsmith.runner.reach import REACH_SENTENCE, reach_rows

    path = Path(args.path)
    if not path.exists():
        print(f"stepsmith reach: {args.path}: no such file or folder", file=sys.stderr)
        return 2
    if path.is_file() and path.suffix.lower() not in (".yaml", ".yml"):
        print(f"stepsmith reach: {args.path}: not a workflow manifest (give the workflow folder "
              "or its workflow.yaml / *.workflow.yaml)", file=sys.stderr)
        return 2
    manifests = _manifests(path)
    if not manifests:
        print(f"stepsmith reach: no workflow manifests found under {args.path}", file=sys.stderr)
        return 2

    status = 0
    results = []
    for m in manifests:
        text, problems = read_manifest_text(m)
        doc = parse_manifest(text, str(m)) if text is not None else None
        if doc is None or doc.workflow is None:
            status = 1
            probs = problems if doc is None else doc.problems
            shown = os.path.relpath(m) if not os.path.isabs(str(m)) else str(m)
            print(f"stepsmith reach: {shown} is not a valid workflow; run `stepsmith check`:",
                  file=sys.stderr)
            for pr in probs[:10]:
                print(f"  {shown}:{pr.span.line}:{pr.span.column + 1}: {pr.code} {pr.message}",
                      file=sys.stderr)
            continue
        results.append((m, doc))

    if args.format == "json":
        out = {"sentence": REACH_SENTENCE, "workflows": []}
        for m, doc in results:
            wf = doc.workflow
            out["workflows"].append({
                "manifest": str(m),
                "workflow": wf.workflow,
                "version": wf.version,
                "problems": len(doc.problems),
                "steps": [r.to_json() for r in reach_rows(wf)],
            })
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return status

    from rich.console import Console
    from rich.table import Table

    # a terminal gets its own width; a pipe or CI log gets room for the whole table
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    for m, doc in results:
        wf = doc.workflow
        table = Table(title=f"{wf.workflow} v{wf.version} — {m}", title_justify="left",
                      show_lines=False)
        for col in ("Step", "Code", "Network", "Connections", "Sources read", "Effects"):
            table.add_column(col, overflow="fold", no_wrap=col in ("Step", "Code", "Network"))
        for r in reach_rows(wf):
            nothing = "[dim]nothing[/dim]"
            sources = [f"{s} (via {wf.sources[s].connection})" if s in wf.sources else s
                       for s in r.sources]
            effects = [f"{e} ({wf.effects[e].kind} via {wf.effects[e].connection})"
                       if e in wf.effects else e for e in r.effects]
            if r.reaches_nothing:
                table.add_row(r.step_id, r.code, "none", nothing, nothing, nothing)
            else:
                table.add_row(
                    r.step_id,
                    r.code,
                    "[bold]public egress[/bold]" if r.network == "public_egress" else "none",
                    ", ".join(r.connections) or nothing,
                    ", ".join(sources) or nothing,
                    ", ".join(effects) or nothing,
                )
        console.print(table)
        if doc.problems:
            console.print(f"[yellow]{len(doc.problems)} problem(s) in this manifest; "
                          "run `stepsmith check`.[/yellow]")
        console.print()
    if results:
        console.print(REACH_SENTENCE)
    return status
