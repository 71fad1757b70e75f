"""Turn raw ledger invoices into clean records the matcher can trust."""

import re
from datetime import date
from decimal import Decimal, InvalidOperation


def clean_supplier(name):
    """Upper-case, drop punctuation and legal suffixes so 'Acme Ltd.' == 'ACME LIMITED'."""
    words = re.sub(r"[^\w ]+", " ", name).upper().split()
    suffixes = {"LTD", "LIMITED", "PLC", "LLP", "INC", "GMBH"}
    return " ".join(w for w in words if w not in suffixes)


def parse_amount(text):
    """Amounts arrive as strings like '1,250.00' or '£99.5'; keep them exact."""
    digits = re.sub(r"[^0-9.\-]", "", str(text))
    try:
        return Decimal(digits).quantize(Decimal("0.01"))
    except InvalidOperation:
        return None


def normalise(invoices):
    clean = []
    rejected = []
    for raw in invoices:
        amount = parse_amount(raw.get("amount", ""))
        po_ref = re.search(r"PO[-\s]?(\d{4,6})", raw.get("reference", ""), re.IGNORECASE)
        if amount is None:
            rejected.append({"invoice_id": raw["invoice_id"], "reason": "amount unreadable"})
            continue
        clean.append(
            {
                "invoice_id": raw["invoice_id"],
                "supplier": clean_supplier(raw["supplier"]),
                "amount": str(amount),
                "currency": raw.get("currency", "GBP").upper(),
                "issued": date.fromisoformat(raw["issued"]).isoformat(),
                "po_number": f"PO-{po_ref.group(1)}" if po_ref else None,
            }
        )
    return {"invoices": clean, "rejected": rejected}
