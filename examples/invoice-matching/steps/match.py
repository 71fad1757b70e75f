"""Match invoices to purchase orders: by PO number first, then by supplier and amount."""

from decimal import Decimal


def in_base_currency(amount, currency, rates):
    if currency == rates["base"]:
        return amount
    rate = Decimal(rates["rates"][currency])
    return (amount / rate).quantize(Decimal("0.01"))


def match(invoices, purchase_orders, rates, tolerance):
    limit = Decimal(tolerance)
    open_orders = {po["po_number"]: po for po in purchase_orders if po["status"] == "open"}
    used = set()
    results = []
    for invoice in invoices["invoices"]:
        amount = in_base_currency(Decimal(invoice["amount"]), invoice["currency"], rates)
        candidates = []
        if invoice["po_number"] in open_orders:
            candidates = [open_orders[invoice["po_number"]]]
        else:
            candidates = [
                po for po in open_orders.values()
                if po["supplier"] == invoice["supplier"] and po["po_number"] not in used
            ]
        best = None
        for po in candidates:
            difference = abs(Decimal(po["amount"]) - amount)
            if difference <= limit and (best is None or difference < best[1]):
                best = (po, difference)
        if best is None:
            reason = "no open purchase order" if not candidates else "amount differs by more than " + tolerance
            results.append({"invoice_id": invoice["invoice_id"], "status": "unmatched", "reason": reason,
                            "amount_gbp": str(amount)})
            continue
        po, difference = best
        used.add(po["po_number"])
        results.append({"invoice_id": invoice["invoice_id"], "status": "matched", "po_number": po["po_number"],
                        "amount_gbp": str(amount), "difference": str(difference)})
    return results
