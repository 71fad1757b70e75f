"""Totals."""

from decimal import Decimal


def total(items):
    return str(sum((Decimal(i["amount"]) for i in items), Decimal("0")))
