"""Every schema error kind lands on the exact key or value (line and column asserted)."""

import pytest
from manifest_kit import BASE, at, pos
from stepsmith.runner.manifest import parse_manifest

# (id, old text, new text, expected code, needle locating the expected start, occurrence,
#  substring of the message)
CASES = [
    # unknown keys -> the key itself, with did-you-mean
    ("unknown-top", "version: 3\n", "version: 3\nverison: 4\n", "SM003", "verison", 1, "did you mean 'version'"),
    ("unknown-step", "    code: steps/match.py:match\n", "    code: steps/match.py:match\n    netwrk: none\n",
     "SM003", "netwrk", 1, "did you mean 'network'"),
    ("unknown-schedule", "timezone: Europe/London}", "timezone: Europe/London, tz: UTC}", "SM003", "tz: UTC", 1,
     "unknown key 'tz'"),
    ("unknown-effect", "key: invoice_id}", "key: invoice_id, kinds: x}", "SM003", "kinds", 1, "did you mean 'kind'"),
    ("unknown-no-close-match", "version: 3\n", "version: 3\nzzz: 1\n", "SM003", "zzz", 1, "expected one of: workflow"),
    # missing keys -> the key that holds the incomplete mapping (or the step's id)
    ("missing-top", 'python: "3.11"\n', "", "SM004", "version", 1, "missing required key 'python'"),
    ("missing-top-first", "workflow: invoice-matching\n", "", "SM004", "version", 1, "'workflow'"),
    ("missing-steps", "steps:\n", "stepz:\n", "SM004", "effects", 1, "missing required key 'steps'"),
    ("missing-step-explanation", "    explanation: Pair each invoice with its purchase order.\n", "",
     "SM004", "match\n", 1, "'explanation'"),
    ("missing-step-code", "    code: steps/bills.py:draft\n", "", "SM004", "draft\n", 1, "missing required key 'code'"),
    ("missing-cron", '{cron: "0 7 * * 1-5", timezone', "{timezone", "SM004", "schedule", 1, "'cron' in 'schedule'"),
    ("missing-effect-kind", "kind: create, ", "", "SM004", "draft_bill", 1, "'kind'"),
    ("missing-source-connection", "purchase_orders: {connection: xero}", "purchase_orders: {}", "SM004",
     "purchase_orders", 1, "'connection'"),
    # wrong types / values -> the value
    ("version-string", "version: 3", 'version: "3"', "SM005", '"3"', 1, "whole number"),
    ("version-zero", "version: 3", "version: 0", "SM005", "0\npython", 1, "at least 1"),
    ("version-bool", "version: 3", "version: true", "SM005", "true", 1, "whole number"),
    ("python-float", 'python: "3.11"', "python: 3.10", "SM005", "3.10", 1, "number 3.1"),
    ("python-bad", 'python: "3.11"', 'python: "py3"', "SM005", '"py3"', 1, "version string"),
    ("slug-bad", "workflow: invoice-matching", "workflow: Invoice Matching", "SM005", "Invoice", 1, "workflow slug"),
    ("step-id-bad", "- id: match", "- id: Match!", "SM005", "Match!", 1, "step id 'Match!'"),
    ("network-bad", "    connections: [xero]\n", "    network: internet\n    connections: [xero]\n", "SM005",
     "internet", 1, "'none' or 'public_egress'"),
    ("network-typo", "    connections: [xero]\n", "    network: public_egres\n    connections: [xero]\n", "SM005",
     "public_egres", 1, "did you mean 'public_egress'"),
    ("code-shape", "code: steps/match.py:match", "code: steps/match.py", "SM005", "steps/match.py", 1,
     "steps/file.py:function"),
    ("inputs-list", "    inputs:\n      matches: steps.match.output\n", "    inputs: [steps.match.output]\n",
     "SM005", "[steps.match.output]", 1, "must be a mapping"),
    ("input-name-bad", "      tolerance:", "      tol-erance:", "SM005", "tol-erance", 1, "Python identifier"),
    ("connections-not-list", "connections: [xero]", "connections: xero", "SM005", "xero", 5, "must be a list"),
    ("connection-alias-key-bad", "  xero: {description: Ledger}", "  xero: {description: Ledger}\n  Slack: {}",
     "SM005", "Slack", 1, "connection alias 'Slack'"),
    ("effect-kind", "kind: create", "kind: creat", "SM005", "creat", 1, "did you mean 'create'"),
    ("cron-fields", '"0 7 * * 1-5"', '"0 7 * *"', "SM005", '"0 7 * *"', 1, "5 fields"),
    ("cron-range", '"0 7 * * 1-5"', '"0 25 * * 1-5"', "SM005", '"0 25', 1, "hour value 25"),
    ("timezone", "Europe/London}", "Europe/Londn}", "SM005", "Europe/Londn", 1, "did you mean 'Europe/London'"),
    ("trigger-two", '  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}\n',
     '  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}\n  manual: {}\n', "SM005", "manual", 1,
     "exactly one"),
    ("trigger-empty", 'trigger:\n  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}\n', "trigger: {}\n",
     "SM005", "trigger", 1, "exactly one"),
    ("trigger-scalar", 'trigger:\n  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}\n',
     "trigger: manual\n", "SM005", "manual", 1, "must be a mapping, got the text 'manual'"),
    ("trigger-null-value", 'trigger:\n  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}\n',
     "trigger:\nconnections_: 1\n", "SM005", "trigger", 1, "must be a mapping, got nothing"),
    ("steps-empty", "steps:\n", "steps: []\nold_steps:\n", "SM005", "[]", 1, "at least one step"),
    # empty explanation has its own code
    ("explanation-empty", "explanation: Draft a bill for each clean match.", 'explanation: "   "', "SM107",
     '"   "', 1, "explanation is empty"),
    ("explanation-blank", "explanation: Draft a bill for each clean match.", 'explanation: ""', "SM107",
     '""', 1, "step 'draft'"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_schema_error_position(case):
    _id, old, new, code, needle, occurrence, fragment = case
    assert old in BASE, "test case does not apply to BASE"
    text = BASE.replace(old, new, 1)
    doc = parse_manifest(text, "workflow.yaml")
    hits = [p for p in doc.problems if p.code == code]
    assert hits, f"expected {code}; got {[(p.code, p.message) for p in doc.problems]}"
    expected = pos(text, needle, occurrence)
    assert any(at(p) == expected for p in hits), (
        f"expected {code} at {expected}; got {[(at(p), p.message) for p in hits]}"
    )
    p = next(p for p in hits if at(p) == expected)
    assert fragment in p.message
    assert p.path == "workflow.yaml"
    assert p.rationale
    assert p.span.end_line > p.span.line or p.span.end_column > p.span.column  # never zero-width
    assert doc.workflow is None


def test_step_problems_name_their_step():
    text = BASE.replace("    code: steps/bills.py:draft\n", "    code: steps/bills.py:draft\n    colour: red\n")
    p = [p for p in parse_manifest(text).problems if p.code == "SM003"][0]
    assert p.step == "draft"
    assert "(step 'draft')" in p.message


def test_several_errors_reported_together_each_at_its_place():
    text = (
        BASE.replace("version: 3", "version: -1")
        .replace("kind: create", "kind: make")
        .replace("- id: draft", "- id: Draft")
    )
    doc = parse_manifest(text)
    got = sorted((p.code, at(p)) for p in doc.problems)
    assert got == sorted([
        ("SM005", pos(text, "-1")),
        ("SM005", pos(text, "make")),
        ("SM005", pos(text, "Draft")),
    ])


def test_manual_trigger_forms():
    for form in ("manual: {}", "manual:", "manual: {description: The controller starts it}"):
        text = BASE.replace('schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}', form)
        doc = parse_manifest(text)
        assert doc.problems == [], form
        assert doc.workflow.trigger.manual is not None


def test_event_trigger_and_its_connection():
    text = BASE.replace('schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}',
                        "event: {name: invoice.received, connection: xero}")
    doc = parse_manifest(text)
    assert doc.problems == []
    assert doc.workflow.trigger.event.name == "invoice.received"


@pytest.mark.parametrize("cron", ["*/15 * * * *", "0 7 * * MON-FRI", "0 0 1 JAN,jul *", "5,35 6-18/2 * * 0-7",
                                  "@daily", "@hourly", "@weekly"])  # Vixie cron's macros
def test_valid_cron_expressions(cron):
    text = BASE.replace('"0 7 * * 1-5"', f'"{cron}"')
    assert parse_manifest(text).problems == []


@pytest.mark.parametrize("cron,fragment", [
    ("@reboot", "not supported"),
    ("0 7 * *", "5 fields"),
    ("0 0 31 2 *", "never fires"),
    ("60 * * * *", "minute value 60"),
    ("* * 0 * *", "day of month value 0"),
    ("* * * 13 *", "month value 13"),
    ("* * * * 8", "day of week value 8"),
    ("5-1 * * * *", "runs backwards"),
    ("*/0 * * * *", "step must be at least 1"),
    ("* * * * FUNDAY", "unknown value"),
])
def test_invalid_cron_expressions(cron, fragment):
    text = BASE.replace('"0 7 * * 1-5"', f'"{cron}"')
    ps = parse_manifest(text).problems
    assert [p.code for p in ps] == ["SM005"]
    assert fragment in ps[0].message
    assert at(ps[0]) == pos(text, f'"{cron}"')


@pytest.mark.parametrize("raised, says", [
    (lambda: __import__("zoneinfo").ZoneInfoNotFoundError("No time zone found"),
     "is not installed on this machine (apt-get install tzdata"),
    (lambda: OSError(24, "Too many open files"),
     "the time zone database could not be read (OSError: [Errno 24] Too many open files)"),
    (lambda: ValueError("Invalid TZif file: magic not found"),
     "could not be read (ValueError: Invalid TZif file: magic not found)"),
])
def test_a_zone_the_database_cannot_give_says_why(monkeypatch, raised, says):
    """A known zone the host's database cannot give: missing is "not installed" with the
    fix; a read that failed says so with its error (CI once saw a transient failure reported
    as "not installed", which sent the reader to install tzdata that was there)."""
    import zoneinfo

    def failing(name):
        raise raised()

    monkeypatch.setattr(zoneinfo, "ZoneInfo", failing)
    problems = [p for p in parse_manifest(BASE, "workflow.yaml").problems if p.code == "SM005"]
    assert [p.message for p in problems if "Europe/London" in p.message and says in p.message], \
        [p.message for p in problems]
    assert at(problems[0]) == pos(BASE, "Europe/London")
