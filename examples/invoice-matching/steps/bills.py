"""Record the intent to draft one bill per clean match. The engine performs it; we never do."""

from decimal import Decimal


def draft_bills(matches, effects):
    drafted = 0
    for item in matches:
        if item["status"] != "matched" or Decimal(item["difference"]) != 0:
            continue
        effects.emit("draft_bill", {
            "invoice_id": item["invoice_id"],
            "po_number": item["po_number"],
            "amount": item["amount_gbp"],
            "status": "DRAFT",
        })
        drafted += 1
    return {"drafted": drafted, "held_for_review": len(matches) - drafted}
