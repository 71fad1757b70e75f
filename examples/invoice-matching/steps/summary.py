"""A plain-language morning summary for the accounts team."""

import statistics
from datetime import datetime, timezone
from decimal import Decimal


def summary(matches, normalised):
    matched = [m for m in matches if m["status"] == "matched"]
    unmatched = [m for m in matches if m["status"] != "matched"]
    amounts = [Decimal(m["amount_gbp"]) for m in matched]
    now = datetime.now(timezone.utc)
    lines = [
        f"Invoices matched: {len(matched)} of {len(matches)}",
        f"Needs a person: {len(unmatched) + len(normalised['rejected'])}",
    ]
    if amounts:
        lines.append(f"Median matched amount: £{statistics.median(amounts)}")
        lines.append(f"Total drafted: £{sum(amounts, Decimal('0'))}")
    return {
        "generated_at": now.isoformat(),
        "matched": len(matched),
        "unmatched": [m["invoice_id"] for m in unmatched],
        "rejected": [r["invoice_id"] for r in normalised["rejected"]],
        "text": "\n".join(lines),
    }
