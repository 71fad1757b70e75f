"""Which invoices are overdue today, and by how much."""

from datetime import date, timedelta
from decimal import Decimal


def overdue(receivables, grace_days):
    today = date.today()
    late = []
    for item in receivables:
        due = date.fromisoformat(item["due"])
        if due + timedelta(days=grace_days) >= today:
            continue
        outstanding = Decimal(item["amount"]) - Decimal(item.get("paid", "0"))
        if outstanding <= 0:
            continue
        late.append({
            "invoice_id": item["invoice_id"],
            "customer": item["customer"],
            "email": item["email"],
            "outstanding": str(outstanding),
            "days_late": (today - due).days,
        })
    late.sort(key=lambda row: (-row["days_late"], row["invoice_id"]))
    return {"as_of": today.isoformat(), "overdue": late}
