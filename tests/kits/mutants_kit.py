"""The payment-approval workflow of the editor's mutants tests (tests/server/test_mutants*.py):
a boundary (`amount <= limit`) no fixture sits on, and a step that loops."""

import json

AT = "2026-12-01T07:00:00+00:00"
STEP = '''\
"""Approve a payment up to the limit."""
from decimal import Decimal


def approve(payment, limit):
    amount = Decimal(payment["amount"])
    limit = Decimal(limit)
    approved = amount <= limit
    return {"approved": approved}


def spin(n):
    left = n
    while left > 0:
        left -= 1
    return left
'''
MANIFEST = '''workflow: pay
version: 1
python: "3.11"
trigger: {manual: {}}
connections:
  bank: {description: the bank}
sources:
  payments: {connection: bank}
steps:
  - id: approve
    explanation: Approve payments up to the limit.
    code: steps/approve.py:approve
    inputs: {payment: sources.payments, limit: "100"}
  - id: spin
    explanation: Count down.
    code: steps/approve.py:spin
    inputs: {n: sources.payments}
'''
MESSAGE = ("no fixture notices if `<=` becomes `<` here; no fixture has amount equal to limit: "
           "record one at the boundary")


def fixture(amount: str, approved: bool) -> str:
    return json.dumps({"inputs": {"payment": {"amount": amount}}, "evaluation_time": AT,
                       "expected": {"output": {"approved": approved}, "effects": []}})


# the approve step alone (its file without `spin`)
APPROVE_STEP = STEP.split("\n\ndef spin")[0].rstrip("\n") + "\n"


def write_pay(base, *, spin: bool = True):
    """The pay workflow under `base`/pay, its approve fixtures on both sides of the boundary;
    with `spin`, also the looping step and its fixture (else the approve step alone)."""
    root = base / "pay"
    step = STEP if spin else APPROVE_STEP
    (root / "steps").mkdir(parents=True)
    (root / "workflow.yaml").write_text(MANIFEST if spin else MANIFEST.split("  - id: spin")[0])
    (root / "steps/approve.py").write_text(step)
    (root / "fixtures/approve").mkdir(parents=True)
    (root / "fixtures/approve/small.json").write_text(fixture("50", True))
    (root / "fixtures/approve/large.json").write_text(fixture("150", False))
    if spin:
        (root / "fixtures/spin").mkdir(parents=True)
        (root / "fixtures/spin/three.json").write_text(json.dumps(
            {"inputs": {"n": 3}, "evaluation_time": AT, "expected": {"output": 0, "effects": []}}))
    return root
