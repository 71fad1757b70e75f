"""Normalise invoices."""

from decimal import Decimal


def normalise(invoices):
    return [{"invoice_id": i["invoice_id"], "amount": str(Decimal(i["amount"]))} for i in invoices]
