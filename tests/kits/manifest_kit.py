"""Shared helpers for manifest and CLI tests: a valid base workflow and position helpers."""

from __future__ import annotations

import textwrap
from pathlib import Path

BASE = textwrap.dedent(
    """\
    workflow: invoice-matching
    version: 3
    python: "3.11"
    trigger:
      schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}
    connections:
      xero: {description: Ledger}
    sources:
      invoices: {connection: xero, description: Supplier invoices}
      purchase_orders: {connection: xero}
    effects:
      draft_bill: {connection: xero, kind: create, key: invoice_id}
    steps:
      - id: match
        explanation: Pair each invoice with its purchase order.
        code: steps/match.py:match
        inputs:
          invoices: sources.invoices
          purchase_orders: sources.purchase_orders
          tolerance: "0.50"
      - id: draft
        explanation: Draft a bill for each clean match.
        code: steps/bills.py:draft
        inputs:
          matches: steps.match.output
        connections: [xero]
        effects: [draft_bill]
    """
)

MATCH_PY = textwrap.dedent(
    """\
    from decimal import Decimal


    def match(invoices, purchase_orders, tolerance):
        limit = Decimal(tolerance)
        return [i for i in invoices if Decimal(i["amount"]) > limit]
    """
)

BILLS_PY = textwrap.dedent(
    """\
    def draft(matches, connections, effects):
        for m in matches:
            effects.emit("draft_bill", {"invoice_id": m["id"]})
        return len(matches)
    """
)


def pos(text: str, needle: str, occurrence: int = 1) -> tuple[int, int]:
    """(line 1-based, column 0-based) of the n-th occurrence of `needle` in `text`."""
    start = -1
    for _ in range(occurrence):
        start = text.index(needle, start + 1)
    line = text.count("\n", 0, start) + 1
    col = start - (text.rfind("\n", 0, start) + 1)
    return line, col


def at(problem) -> tuple[int, int]:
    return problem.span.line, problem.span.column


def write_workflow(root: Path, manifest: str = BASE, files: dict | None = None) -> Path:
    """Write a workflow folder; returns the manifest path."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "workflow.yaml").write_text(manifest, encoding="utf-8")
    files = {"steps/match.py": MATCH_PY, "steps/bills.py": BILLS_PY} if files is None else files
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")
    return root / "workflow.yaml"


def big_manifest(n: int) -> str:
    """A valid manifest with n chained steps (all in one step file)."""
    lines = BASE.split("steps:\n")[0].splitlines() + ["steps:"]
    for i in range(n):
        lines += [
            f"  - id: s{i}",
            f"    explanation: Step {i} refines the previous result.",
            f"    code: steps/chain.py:f{i}",
            "    inputs:",
            "      prev: sources.invoices" if i == 0 else f"      prev: steps.s{i - 1}.output",
            "      threshold: 5",
        ]
    return "\n".join(lines) + "\n"


def big_step_file(n: int) -> str:
    return "".join(f"def f{i}(prev, threshold):\n    return prev\n\n\n" for i in range(n))
