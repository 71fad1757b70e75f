"""Cursor-marker helpers for the completion tests: a `|` in a document marks the cursor."""

from __future__ import annotations

from pathlib import Path

from cursor_kit import cursor
from stepsmith.runner.language.completion import Item, complete
from stepsmith.runner.lines import split_lines
from stepsmith.runner.workspace.diagnostics import check_manifest
from stepsmith.runner.workspace.index import WorkspaceIndex, norm
from stepsmith.runner.workspace.snapshot import Buffer, WorkspaceSnapshot

MANIFEST = """workflow: invoice-matching
version: 3
python: "3.11"
trigger:
  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}
connections:
  xero: {description: Accounts payable ledger}
  ecb: {description: Reference rates}
sources:
  invoices: {connection: xero, description: Supplier invoices}
  purchase_orders: {connection: xero, description: Open purchase orders}
effects:
  draft_bill: {connection: xero, kind: create, key: invoice_id}
steps:
  - id: normalise
    explanation: Clean up each invoice.
    code: steps/normalise.py:normalise
    inputs:
      invoices: sources.invoices
  - id: match
    explanation: Pair invoices with purchase orders.
    code: steps/match.py:match
    inputs:
      invoices: steps.normalise.output
  - id: draft_bills
    explanation: Draft a bill for every clean match.
    code: steps/bills.py:draft_bills
    inputs:
      matches: steps.match.output
    connections: [xero]
    effects: [draft_bill]
"""

FILES = {
    "steps/normalise.py": "def normalise(invoices):\n    return invoices\n",
    "steps/match.py": ("import decimal\n\n\ndef match(invoices, purchase_orders, tolerance):\n"
                       "    return []\n\n\ndef in_base_currency(amount, rate):\n"
                       "    return amount\n"),
    "steps/bills.py": ("def draft_bills(matches, connections, effects):\n"
                       "    return len(matches)\n"),
}


def workspace(tmp_path: Path, open_files: dict[str, str], manifest: str = MANIFEST,
              files: dict[str, str] = FILES) -> WorkspaceSnapshot:
    """The workflow on disk (its manifest checked once, as the server does), with
    `open_files` as unsaved buffers over it."""
    (tmp_path / "steps").mkdir(exist_ok=True)
    (tmp_path / "workflow.yaml").write_text(manifest)
    for rel, text in files.items():
        (tmp_path / rel).write_text(text)
    m = norm(tmp_path / "workflow.yaml")
    ix = WorkspaceIndex().with_manifests([m])
    ix, _ = ix.with_check(m, check_manifest(WorkspaceSnapshot.of(ix, {}), m), None)
    bufs = {norm(tmp_path / rel): Buffer(t, 2, tuple(split_lines(t)))
            for rel, t in open_files.items()}
    return WorkspaceSnapshot.of(ix, bufs)


def apply(text: str, item: Item) -> str:
    lines = split_lines(text)
    r = item.range
    assert r.line == r.end_line
    raw = lines[r.line - 1]
    lines[r.line - 1] = raw[:r.column] + item.new_text + raw[r.end_column:]
    return "".join(lines)


def complete_at(tmp_path: Path, rel: str, marked: str, **kw) -> tuple[str, list[Item]]:
    """(the text, the items) for a `|`-marked buffer `rel` of the workspace."""
    text, line, col = cursor(marked)
    ws = workspace(tmp_path, {rel: text}, **kw)
    return text, complete(ws, norm(tmp_path / rel), line, col)


def edits(items: list[Item]) -> list[tuple[str, tuple[int, int, int, int], str]]:
    """(label, range, new text) of every item: the whole edit, not just the label."""
    return [(i.label, (i.range.line, i.range.column, i.range.end_line, i.range.end_column),
             i.new_text) for i in items]


def one(items: list[Item], label: str) -> Item:
    (found,) = [i for i in items if i.label == label]
    return found
