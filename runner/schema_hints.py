"""What schema-driven editors (VS Code's YAML extension, ...) complete with: `defaultSnippets`
per definition of the manifest schema. Only the schema carries them; the model ignores them.
Each snippet's body, with its placeholders filled by their defaults, is a valid part of a
manifest (tests/manifest/test_schema_hints.py checks them against the model).
"""

from __future__ import annotations

#: $defs title -> the snippets offered where such a value is written.
SNIPPETS: dict[str, list[dict]] = {
    "Step": [{
        "label": "step",
        "description": "A step: id, explanation, code and inputs",
        "body": {"id": "${1:match}", "explanation": "${2:What this step does, in plain language.}",
                 "code": "${3:steps/match.py:match}", "inputs": {"${4:invoices}": "${5:sources.invoices}"}},
    }],
    "Trigger": [
        {"label": "schedule", "description": "Run on a cron schedule",
         "body": {"schedule": {"cron": "${1:0 7 * * 1-5}", "timezone": "${2:Europe/London}"}}},
        {"label": "event", "description": "Run when an event arrives",
         "body": {"event": {"name": "${1:invoice.received}"}}},
        {"label": "manual", "description": "Run only when started by hand",
         "body": {"manual": {"description": "${1:Finance starts it at month end}"}}},
    ],
    "Schedule": [{"label": "weekdays at 07:00", "description": "A cron schedule and its timezone",
                  "body": {"cron": "${1:0 7 * * 1-5}", "timezone": "${2:Europe/London}"}}],
    "Source": [
        {"label": "connection source", "description": "Records read through a connection",
         "body": {"connection": "${1:xero}", "description": "${2:Supplier invoices}"}},
        {"label": "channel source", "description": "A channel's records",
         "body": {"kind": "channel", "channel": "${1:finance_requests}"}},
        {"label": "graph source", "description": "A query on the organisation's graph",
         "body": {"kind": "graph", "query": "${1:open_invoices}"}},
    ],
    "Effect": [{"label": "effect", "description": "A change the workflow may make",
                "body": {"connection": "${1:xero}", "kind": "${2|create,update,delete,send|}",
                         "key": "${3:invoice_id}"}},
               {"label": "channel effect", "description": "A message sent to a channel",
                "body": {"channel": "${1:finance-requests}", "kind": "send",
                         "key": "${2:day}"}}],
    "Connection": [{"label": "connection", "description": "A connection alias (never a credential)",
                    "body": {"description": "${1:Accounts payable ledger}"}}],
}

#: The whole manifest, offered in an empty file.
WORKFLOW_SNIPPET = {
    "label": "workflow",
    "description": "A workflow manifest with one scheduled step",
    "body": {
        "workflow": "${1:invoice-matching}", "version": 1, "python": "${2:3.11}",
        "trigger": {"schedule": {"cron": "${3:0 7 * * 1-5}", "timezone": "${4:Europe/London}"}},
        "steps": [{"id": "${5:match}", "explanation": "${6:What this step does, in plain language.}",
                   "code": "${7:steps/match.py:match}"}],
    },
}
