"""Draft bills."""


def draft(items, connections, effects):
    for item in items:
        effects.emit("draft_bill", {"invoice_id": item["invoice_id"], "amount": item["amount"]})
    return len(items)
