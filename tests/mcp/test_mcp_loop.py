"""The assistant's loop, end to end, on a fresh `stepsmith init`: the assistant (the MCP SDK's
own client over stdio) drafts a step, makes `check` clean with the fixes it is given (or
`stepsmith check --fix`), runs the step, proposes its result as a fixture; the person accepts
it with the real `stepsmith review --accept`; `stepsmith test` then runs the proposal and it
passes for the right reason (it executed in a sandbox, and its expectation is the matching a
reference computes here, not an error). The same with the usual drafting mistakes: typing
imports used only in annotations, a module-level constant, a misspelt manifest key.

The driver is tests/kits/agent_kit.py (`play_loop`). Real sandbox, real CLI."""

from __future__ import annotations

import re
from decimal import Decimal

import agent_kit as ak
import pytest

pytestmark = [pytest.mark.asyncio(loop_scope="function"), pytest.mark.usefixtures("sandbox")]

MANIFEST_ADDITION = """  - id: match
    {explanation}: Pair each invoice with an open purchase order of the same supplier.
    code: steps/match.py:match
    inputs:
      invoices: sources.invoices
      purchase_orders: sources.purchase_orders
connections:
  xero: {{description: Accounts payable ledger}}
sources:
  invoices: {{connection: xero, description: Supplier invoices received yesterday}}
  purchase_orders: {{connection: xero, description: Open purchase orders}}
"""

BODY = '''    pairs = []
    for inv in invoices:
        amount = Decimal(inv["amount"])
        found = None
        for po in purchase_orders:
            close = abs(Decimal(po["amount"]) - amount) <= {tolerance}
            if po["supplier"] == inv["supplier"] and close:
                found = po["id"]
                break
        pairs.append({{"invoice": inv["id"], "po": found}})
    return {{"pairs": pairs}}
'''

# an assistant's habits: an import it never uses (the base case's one safe fix)
DRAFT = ('import os\nfrom decimal import Decimal\n\n\ndef match(invoices, purchase_orders):\n'
         '    """Pair each invoice with an open PO of the same supplier within a penny."""\n'
         + BODY.format(tolerance='Decimal("0.01")'))
TYPING = ('from decimal import Decimal\nfrom typing import Dict, List\n\n\n'
          'def match(invoices: List[Dict], purchase_orders: List[Dict]) -> Dict:\n'
          '    """Pair each invoice with an open PO of the same supplier within a penny."""\n'
          + BODY.format(tolerance='Decimal("0.01")'))
CONSTANT = ('from decimal import Decimal\n\nTOLERANCE = Decimal("0.01")\n\n\n'
            'def match(invoices, purchase_orders):\n'
            '    """Pair each invoice with an open PO of the same supplier within a penny."""\n'
            + BODY.format(tolerance="TOLERANCE"))

INPUTS = {
    "invoices": [{"id": "INV-1", "supplier": "acme", "amount": "100.00"},
                 {"id": "INV-2", "supplier": "acme", "amount": "250.01"},
                 {"id": "INV-3", "supplier": "globex", "amount": "75.00"},
                 {"id": "INV-4", "supplier": "initech", "amount": "10.00"}],
    "purchase_orders": [{"id": "PO-7", "supplier": "acme", "amount": "250.00"},
                        {"id": "PO-8", "supplier": "acme", "amount": "100.00"},
                        {"id": "PO-9", "supplier": "globex", "amount": "75.02"},
                        {"id": "PO-10", "supplier": "initech", "amount": "10.01"}],
}


def reference(invoices, purchase_orders) -> dict:
    """The matching the task asks for, computed here: same supplier, within a penny."""
    out = []
    for inv in invoices:
        po = next((p["id"] for p in purchase_orders if p["supplier"] == inv["supplier"]
                   and abs(Decimal(p["amount"]) - Decimal(inv["amount"])) <= Decimal("0.01")),
                  None)
        out.append({"invoice": inv["id"], "po": po})
    return {"pairs": out}


WANT = reference(**INPUTS)
assert [p["po"] for p in WANT["pairs"]] == ["PO-8", "PO-7", None, "PO-10"]  # a real mix


@pytest.fixture
def ws(tmp_path):
    return ak.fresh_workspace(tmp_path)


def draft_files(ws, code: str, explanation_key: str = "explanation") -> dict[str, str]:
    manifest = (ws / "wf" / "workflow.yaml").read_text()
    return {"wf/steps/match.py": code,
            "wf/workflow.yaml": manifest + MANIFEST_ADDITION.format(explanation=explanation_key)}


def assert_green_for_the_right_reason(ws, rec: ak.LoopRecord) -> None:
    """The loop closed: the proposal was accepted, `test` ran it in a sandbox and it passed,
    with the reference's matching as its expectation."""
    assert rec.run["status"] == "ok" and rec.run["output"] == WANT, rec.run
    assert rec.proposal["status"] == "ok" and not rec.proposal["replaces_existing"]
    assert rec.proposal["document"]["expected"] == {"output": WANT, "effects": []}
    assert rec.review.returncode == 0, rec.review.stdout + rec.review.stderr
    assert "accepted 1," in rec.review.stdout
    results = {r["id"]: r for r in rec.test["results"]}
    assert set(results) == {"wf::total::example", "wf::match::acme-day"}, results.keys()
    mine = results["wf::match::acme-day"]
    assert mine["outcome"] == "passed" and mine["result"]["status"] == "ok"
    assert mine["result"]["output"] == WANT and not mine.get("served_from")
    assert rec.test_rc == 0 and rec.test["summary"]["failed"] == 0
    assert rec.test["summary"]["executed"] == 2  # both ran in a sandbox, none from a recording
    assert rec.test["waiting_for_review"] == [] and rec.test["pending"] == []
    assert rec.check_rc == 0  # the person's own check agrees it is clean
    assert not (ws / "wf" / ".stepsmith" / "pending" / "match").exists() or not any(
        (ws / "wf" / ".stepsmith" / "pending" / "match").iterdir())


@pytest.mark.parametrize("fix_with", ["mcp", "cli"])
async def test_the_loop_closes_from_a_draft_to_an_accepted_passing_fixture(ws, fix_with):
    rec = await ak.play_loop(ws, "wf", "match", draft_files(ws, DRAFT), INPUTS, "acme-day",
                             evaluation_time="2026-12-01T07:00:00", fix_with=fix_with)
    if fix_with == "mcp":
        assert rec.fixes == [("SS101", "safe")]  # the unused `import os`, removed
    else:
        assert "SS101" in rec.fixes[0][1] and rec.fixes[1:] == []
    assert "import os" not in (ws / "wf" / "steps" / "match.py").read_text()
    assert rec.proposal["document"]["evaluation_time"] == "2026-12-01T07:00:00+00:00"
    assert_green_for_the_right_reason(ws, rec)


@pytest.mark.parametrize("fix_with", ["mcp", "cli"])
async def test_typing_imports_used_only_in_annotations(ws, fix_with):
    """The safe fix of a `typing` import used only in annotations removes the annotations in
    the same fix, so the step still means what it meant (the fix engine's rule)."""
    rec = await ak.play_loop(ws, "wf", "match", draft_files(ws, TYPING), INPUTS, "acme-day",
                             fix_with=fix_with)
    code = (ws / "wf" / "steps" / "match.py").read_text()
    assert "typing" not in code and "List[" not in code and "Dict" not in code, code
    assert "def match(invoices, purchase_orders):" in code, code
    assert_green_for_the_right_reason(ws, rec)


async def test_a_module_level_constant(ws):
    """No fix can know where the constant belongs: the assistant moves it into the function
    as the message says, and the loop goes on."""
    said: list[str] = []

    def move_into_function(problems: list[dict]) -> bool:
        (p,) = problems
        said.append(p["message"])
        if p["code"] != "SS405" or "move it into" not in p["message"]:
            return False
        f = ws / p["path"]
        text = f.read_text()
        line = text.splitlines()[p["line"] - 1]
        text = text.replace(line + "\n", "", 1)
        text = re.sub(r'(    """.*"""\n)', r"\1    " + line.strip().replace("\\", "\\\\") + "\n",
                      text, count=1)
        f.write_text(text)
        return True

    rec = await ak.play_loop(ws, "wf", "match", draft_files(ws, CONSTANT), INPUTS, "acme-day",
                             redraft=move_into_function)
    assert rec.fixes == [("SS405", "redraft")] and "top-level" in said[0]
    assert '    TOLERANCE = Decimal("0.01")\n' in (ws / "wf" / "steps" / "match.py").read_text()
    assert_green_for_the_right_reason(ws, rec)


@pytest.mark.parametrize("fix_with", ["mcp", "cli"])
async def test_a_misspelt_manifest_key(ws, fix_with):
    """`explenation:` is an unknown key and leaves `explanation` missing: the did-you-mean
    (a guess the assistant accepts) settles both."""
    rec = await ak.play_loop(ws, "wf", "match", draft_files(ws, DRAFT, "explenation"), INPUTS,
                             "acme-day", fix_with=fix_with, guesses=True)
    manifest = (ws / "wf" / "workflow.yaml").read_text()
    assert "explenation" not in manifest and manifest.count("    explanation: ") == 2
    if fix_with == "mcp":
        assert ("SM003", "guess") in rec.fixes and ("SS101", "safe") in rec.fixes
        assert all(code != "SM004" for code, _ in rec.fixes)  # settled by the rename
    assert_green_for_the_right_reason(ws, rec)
