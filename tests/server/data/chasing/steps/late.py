"""Late invoices."""

from datetime import date


def late(receivables):
    today = date.today()
    return [r["invoice_id"] for r in receivables if date.fromisoformat(r["due"]) < today]


def count_late(rows):
    return len(rows)
