"""Draft reminder e-mails. Sending is an effect the engine performs after review."""

from datetime import date
from decimal import Decimal


def reminders(scored, sender, effects):
    today = date.fromisoformat(scored["as_of"])
    drafted = []
    for row in scored["scored"]:
        if row["pays_soon"] is not None and row["pays_soon"] >= 0.8:
            continue
        amount = Decimal(row["outstanding"]).quantize(Decimal("0.01"))
        tone = "a gentle reminder" if row["days_late"] < 30 else "an urgent reminder"
        body = (
            f"Dear {row['customer']},\n\n"
            f"This is {tone} that invoice {row['invoice_id']} for £{amount:,} "
            f"is {row['days_late']} days overdue as of {today:%d %B %Y}.\n\n"
            f"Kind regards,\n{sender}"
        )
        reminder_id = f"{row['invoice_id']}-{today.isoformat()}"
        effects.emit("send_reminder", {"reminder_id": reminder_id, "to": row["email"],
                                       "subject": f"Invoice {row['invoice_id']} is overdue", "body": body})
        drafted.append(reminder_id)
    return {"drafted": drafted}
