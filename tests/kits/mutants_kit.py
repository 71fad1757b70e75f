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
