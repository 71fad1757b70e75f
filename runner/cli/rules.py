"""`stepsmith rules` (the catalogue as a table or JSON) and `stepsmith rule CODE` (one rule
in full, with a refused example and a close legal one), like `ruff rule`."""

from __future__ import annotations

import argparse
import json
import sys

from stepsmith.runner import rules
from stepsmith.runner.cli.args import add_format
from stepsmith.runner.rules.pages import text


def register(sub) -> None:
    p = sub.add_parser("rules", help="list every rule (step code SS*, manifest SM*)",
                       description="List every rule the validator and manifest checks report.")
    add_format(p)
    p.set_defaults(func=run_rules)

    p = sub.add_parser("rule", help="explain one rule: summary, rationale, examples",
                       description="Explain one rule, e.g. `stepsmith rule SS201`.")
    p.add_argument("code", help="rule code (SS201) or name (private-attribute)")
    add_format(p)
    p.set_defaults(func=run_rule)


def run_rules(args: argparse.Namespace) -> int:
    catalogue = rules.all_rules()
    if args.format == "json":
        json.dump([r.to_json() for r in catalogue], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    from rich.table import Table
    from stepsmith.runner.cli.console import SafeConsole as Console

    table = Table(title="stepsmith rules", show_lines=False)
    table.add_column("Code", no_wrap=True, style="bold")
    table.add_column("Name", no_wrap=True)
    table.add_column("Summary")
    table.add_column("Security", no_wrap=True, justify="center")
    for r in catalogue:
        table.add_row(r.code, r.name, r.summary, "yes" if r.security else "no")
    console = Console(highlight=False, soft_wrap=False,
                      width=None if sys.stdout.isatty() else 160)
    console.print(table)
    print("Run `stepsmith rule CODE` for a rule's rationale and examples.")
    return 0


def _indent(snippet: str) -> str:
    return "\n".join("    " + line if line else "" for line in snippet.rstrip("\n").splitlines())


def run_rule(args: argparse.Namespace) -> int:
    try:
        rule = rules.get(args.code)
    except rules.UnknownRule as exc:
        hint = f" Did you mean {' or '.join(exc.suggestions)}?" if exc.suggestions else ""
        print(f"stepsmith rule: unknown rule code {args.code!r}.{hint} "
              "`stepsmith rules` lists them all.", file=sys.stderr)
        return 2
    if args.format == "json":
        json.dump(rule.to_json(), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0

    print(text(rule))
    return 0
