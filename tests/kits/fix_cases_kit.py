"""The manifest-fix cases, one table shared by the editor's quick fixes
(tests/language/test_code_actions.py) and `check --fix` (tests/cli/test_check_fix.py): a
two-step workflow and, per rule, a broken edit and the text its preferred fix gives."""

from pathlib import Path

from stepsmith.runner.lines import split_lines
from stepsmith.runner.workspace.diagnostics import check_manifest
from stepsmith.runner.workspace.index import WorkspaceIndex, norm
from stepsmith.runner.workspace.snapshot import Buffer, WorkspaceSnapshot

MANIFEST = """workflow: demo
version: 1
python: "3.11"
trigger: {manual: {}}
connections:
  xero: {description: Ledger}
sources:
  invoices: {connection: xero, description: Invoices}
effects:
  draft_bill: {connection: xero, kind: create, key: invoice_id}
steps:
  - id: read
    explanation: Read the invoices.
    code: steps/read.py:read
    inputs:
      invoices: sources.invoices
  - id: bills
    explanation: Draft bills.
    code: steps/bills.py:bills
    inputs:
      rows: steps.read.output
    connections: [xero]
    effects: [draft_bill]
"""
READ_PY = "import json\n\n\ndef read(invoices):\n    return json.dumps(invoices)\n"
BILLS_PY = ('def bills(rows, effects):\n    for r in rows:\n'
            '        effects.emit("draft_bill", {"invoice_id": r})\n    return len(rows)\n')



MANIFEST_CASES = [
    # (what, old, new, code, the text the preferred fix gives)
    ("unknown key", "    code: steps/read.py:read\n", "    code: steps/read.py:read\n    netwrk: none\n",
     "SM003", "    network: none\n"),
    ("unknown key, quoted", "    code: steps/read.py:read\n",
     "    code: steps/read.py:read\n    'netwrk': none\n", "SM003", "    'network': none\n"),
    ("connection of a step", "connections: [xero]", "connections: [xeor]", "SM101", "connections: [xero]"),
    ("connection of a source, quoted", "{connection: xero, description: Invoices}",
     '{connection: "xer", description: Invoices}', "SM101", '{connection: "xero", description'),
    ("source", "invoices: sources.invoices", "invoices: sources.invoice", "SM102",
     "invoices: sources.invoices\n"),
    ("source, quoted", "invoices: sources.invoices", 'invoices: "sources.invoice"', "SM102",
     'invoices: "sources.invoices"\n'),
    ("effect", "effects: [draft_bill]", "effects: [draft_bil]", "SM103", "effects: [draft_bill]"),
    ("step output", "rows: steps.read.output", "rows: steps.raed.output", "SM104",
     "rows: steps.read.output"),
    ("code file", "code: steps/read.py:read", "code: steps/reed.py:read", "SM201",
     "code: steps/read.py:read\n"),
    ("function", "code: steps/read.py:read", "code: steps/read.py:raed", "SM203",
     "code: steps/read.py:read\n"),
    ("unused input", "      invoices: sources.invoices\n",
     "      invoices: sources.invoices\n      extra: 3\n", "SM204",
     "    inputs:\n      invoices: sources.invoices\n  - id: bills"),
    ("unused input, a misspelt parameter", "      invoices: sources.invoices\n",
     "      invoice: sources.invoices\n", "SM204", "      invoices: sources.invoices\n"),
    ("missing input", "    inputs:\n      invoices: sources.invoices\n", "", "SM205",
     "    code: steps/read.py:read\n    inputs:\n      invoices: sources.invoices\n  - id: bills"),
    ("missing input, flow", "    inputs:\n      rows: steps.read.output\n",
     "    inputs: {}\n", "SM205", "    inputs: {rows: null}\n"),
    ("missing input, a flow step", ("  - id: bills\n    explanation: Draft bills.\n    code: steps/bills.py:bills\n"
     "    inputs:\n      rows: steps.read.output\n    connections: [xero]\n    effects: [draft_bill]\n"),
     ("  - {id: bills, explanation: Draft bills., code: 'steps/bills.py:bills', connections: [xero], "
     "effects: [draft_bill]}\n"), "SM205", "effects: [draft_bill], inputs: {rows: null}}\n"),
    ("missing explanation", "    explanation: Read the invoices.\n", "", "SM004",
     '    explanation: "TODO: say in plain language what this step does"\n'),
]

# renaming the input to the parameter it misspells also gives that parameter its input
ALSO_FIXED = {"unused input, a misspelt parameter": {"SM205": 1}}

# the step emits an effect its workflow does not declare (SS601; "declare this effect")
BILLS_UNDECLARED = BILLS_PY.replace('"draft_bill", {"invoice_id": r}', '"send_note", {"note_id": r}')


# one step reading a channel: the workflow of the safe-fix tests (CLI and pyflakes reference)
ONE_STEP = """workflow: demo
version: 1
python: "3.11"
trigger: {manual: {}}
sources:
  invoices: {kind: channel, channel: finance-requests}
steps:
  - id: read
    explanation: Read the invoices.
    code: steps/read.py:read
    inputs:
      invoices: sources.invoices
"""


def snapshot(tmp_path: Path, open_files: dict[str, str]) -> WorkspaceSnapshot:
    (tmp_path / "steps").mkdir(exist_ok=True)
    for rel, text in {"workflow.yaml": MANIFEST, "steps/read.py": READ_PY,
                      "steps/bills.py": BILLS_PY}.items():
        (tmp_path / rel).write_text(text)
    m = norm(tmp_path / "workflow.yaml")
    bufs = {norm(tmp_path / rel): Buffer(t, 1, tuple(split_lines(t))) for rel, t in open_files.items()}
    ix = WorkspaceIndex().with_manifests([m])
    ix, _ = ix.with_check(m, check_manifest(WorkspaceSnapshot.of(ix, bufs), m), 1)
    return WorkspaceSnapshot.of(ix, bufs)
