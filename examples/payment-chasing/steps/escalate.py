"""Accounts that need a phone call from a person today."""

from decimal import Decimal


def escalate(scored, threshold):
    limit = Decimal(threshold)
    calls = []
    for row in scored["scored"]:
        reasons = []
        if row["days_late"] >= 60:
            reasons.append(f"{row['days_late']} days late")
        if Decimal(row["outstanding"]) >= limit:
            reasons.append(f"owes £{row['outstanding']}")
        if row["late_payments"] >= 3:
            reasons.append(f"late {row['late_payments']} times before")
        if reasons:
            calls.append({"customer": row["customer"], "invoice_id": row["invoice_id"],
                          "why": "; ".join(reasons)})
    return {"call_today": calls, "count": len(calls)}
