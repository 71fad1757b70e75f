"""Manifest rules (SM codes). Codes are stable forever; never renumber, only add.

`RULES` is a list of `stepsmith.runner.rules.Rule` (the package defines `Rule` before it
collects its parts, on first use). `rationale(code)` / `summary(code)` are used when a
manifest problem is created.
"""

from __future__ import annotations

from stepsmith.runner.rules import Rule

# (code, name, summary, rationale)
SPECS: list[tuple[str, str, str, str]] = [
    # --- SM0xx: the file and its schema -------------------------------------------------
    ("SM001", "yaml-syntax", "The manifest is not valid YAML.",
     "A manifest that does not parse cannot be reviewed or run."),
    ("SM002", "duplicate-key", "A mapping repeats a key.",
     "YAML silently keeps only one of the values, so what a reviewer reads may not be what runs."),
    ("SM003", "unknown-key", "A key the manifest format does not define.",
     "Unknown keys are usually typos of real ones; ignoring them would silently drop a setting."),
    ("SM004", "missing-key", "A required key is missing.",
     "Every workflow and step states what it needs explicitly; nothing is assumed."),
    ("SM005", "invalid-value", "A value has the wrong type or is not allowed.",
     "The engine runs only manifests whose every value has one unambiguous meaning."),
    ("SM006", "not-a-manifest", "The file is empty or its top level is not a mapping.",
     "A workflow manifest is a YAML mapping with workflow, version, python, trigger and steps."),
    ("SM007", "too-large", "The manifest is too large or nested too deeply.",
     "Limits keep hostile or runaway files from stalling the editor, CI or the engine."),
    ("SM008", "not-text", "The manifest is not UTF-8 text.",
     "Manifests are reviewed as text; binary or mis-encoded content cannot be read reliably."),
    ("SM009", "unsupported-yaml", "A YAML feature the manifest refuses (anchors, aliases, tags, "
     "merge keys, several documents, non-scalar keys).",
     "A manifest must read literally; aliases can also expand exponentially (billion laughs)."),
    # --- SM1xx: cross references inside the manifest ----------------------------------------
    ("SM101", "undeclared-connection", "A connection is used but not declared under `connections`.",
     "Every credential a step may receive must be declared once, by name, where a reviewer sees it."),
    ("SM102", "undeclared-source", "An input refers to a source not declared under `sources`.",
     "Steps may read only declared sources, so the data a workflow touches is listed in one place."),
    ("SM103", "undeclared-effect", "A step lists an effect not declared under `effects`.",
     "Every change a workflow can make to the outside world must be declared and reviewed."),
    ("SM104", "unknown-step-output", "An input refers to `steps.<id>.output` of no such step, "
     "or is a malformed step reference.",
     "Wiring between steps lives in the manifest and must point at a real step."),
    ("SM105", "wiring-cycle", "Step inputs form a cycle.",
     "Steps run in dependency order; a cycle means no step of it could ever start."),
    ("SM106", "duplicate-step-id", "Two steps share an id.",
     "Fixtures, accepted results and reach are keyed by step id; ids must be unique."),
    ("SM107", "empty-explanation", "A step has an empty explanation.",
     "The explanation is what the workflow's owner reads; every step must say what it does."),
    ("SM108", "reserved-input", "An input is named `connections` or `effects`.",
     "Those parameter names are reserved for granted credentials and the effect recorder."),
    ("SM109", "repeated-entry", "A step lists the same connection or effect twice.",
     "Repetition is harmless to run but usually a copy-paste slip worth fixing."),
    # --- SM2xx: step code and signatures ---------------------------------------------------
    ("SM201", "code-file-missing", "`code:` points at a file that does not exist.",
     "A step must name real code so it can be validated and reviewed."),
    ("SM202", "code-path-outside", "`code:` is absolute or leaves the workflow folder.",
     "A workflow is self-contained: its code lives in its own folder and is reviewed with it."),
    ("SM203", "function-missing", "`code:` names a function that is not defined at the top "
     "level of its file.",
     "The engine calls exactly the named top-level function."),
    ("SM204", "input-without-parameter", "An input has no matching parameter in the step function.",
     "The engine calls the function with its inputs as keyword arguments; an extra one would fail."),
    ("SM205", "parameter-without-input", "A parameter of the step function has no input.",
     "Every parameter must be wired in the manifest; nothing is supplied implicitly."),
    ("SM206", "unsupported-signature", "The step function uses *args, **kwargs, positional-only "
     "parameters or defaults.",
     "Parameters must match inputs exactly so the manifest alone says what a step receives."),
    ("SM207", "connections-parameter", "The step function takes `connections` but the step "
     "declares none.",
     "Credentials reach a step only when its manifest entry declares them, where a reviewer sees it."),
    ("SM208", "effects-parameter", "The step declares effects but its function takes no "
     "`effects`, or takes `effects` without declaring any.",
     "Effects are emitted only through the `effects` parameter, and only declared ones."),
    ("SM209", "unused-grant", "A step is granted a connection it cannot use: its function "
     "takes no `connections` and none of its effects goes through that connection (a warning).",
     "A reviewer approves every credential a step receives; one it cannot use widens its reach "
     "for nothing."),
    # --- SM3xx: what inputs may carry ---------------------------------------------------------
    ("SM301", "forbidden-input-field", "An input carries a field named secret, credentials, "
     "api_key or token.",
     "Inputs are stored verbatim in fixtures and results; credentials arrive only as connections."),
    # --- SM4xx: the workflow as an immutable version (`stepsmith check --base REV`) ----------
    ("SM401", "version-not-increased", "The manifest or a step file it uses changed since the base "
     "revision but `version:` did not increase (a warning).",
     "The engine saves each workflow as an immutable version; a changed workflow under an "
     "unchanged version number would mean two different workflows with one identity."),
    ("SM402", "version-decreased", "`version:` is lower than at the base revision.",
     "Versions only go up: a lower number could collide with a version already saved and run."),
    # --- SM5xx: the machine the workflow is checked and run on -----------------------------
    ("SM501", "python-not-installed", "The Python the manifest pins (`python:`) is not "
     "installed here, the interpreter the settings name for it is not that version, or it is "
     "older than 3.11.",
     "A workflow's steps are checked with the grammar of the Python it pins and run on that "
     "Python, never on another one: without it nothing can be checked or run faithfully."),
]

# (refused snippet, accepted snippet) shown by `stepsmith rule SMxxx`
EXAMPLES: dict[str, tuple[str, str]] = {
    "SM001": ("connections:\n\txero: {}", "connections:\n  xero: {}"),
    "SM002": ("version: 3\nversion: 4", "version: 4"),
    "SM003": ("steps:\n  - id: match\n    netwrk: none", "steps:\n  - id: match\n    network: none"),
    "SM004": ("trigger:\n  schedule: {cron: \"0 7 * * *\"}",
              "trigger:\n  schedule: {cron: \"0 7 * * *\", timezone: Europe/London}"),
    "SM005": ("python: 3.10", "python: \"3.10\""),
    "SM006": ("- workflow: invoice-matching", "workflow: invoice-matching"),
    "SM009": ("base: &base {connection: xero}\ninvoices: *base", "invoices: {connection: xero}"),
    "SM101": ("connections: [slack]  # not declared", "connections: [xero]  # declared above"),
    "SM102": ("invoice: sources.invoice", "invoice: sources.invoices"),
    "SM103": ("effects: [draft]", "effects: [draft_bill]"),
    "SM104": ("matches: steps.matcher.output", "matches: steps.match.output"),
    "SM105": ("# match takes steps.draft.output, draft takes steps.match.output",
              "# draft takes steps.match.output only"),
    "SM106": ("- id: match\n...\n- id: match", "- id: match\n...\n- id: match_again"),
    "SM107": ('explanation: ""', "explanation: Pair each invoice with its purchase order."),
    "SM108": ("inputs: {connections: [xero]}", "connections: [xero]"),
    "SM109": ("connections: [xero, xero]", "connections: [xero]"),
    "SM201": ("code: steps/mtach.py:match", "code: steps/match.py:match"),
    "SM202": ("code: ../shared/match.py:match", "code: steps/match.py:match"),
    "SM203": ("code: steps/match.py:matcher", "code: steps/match.py:match"),
    "SM204": ("inputs: {invoices: sources.invoices, currency: GBP}  # def match(invoices)",
              "inputs: {invoices: sources.invoices}  # def match(invoices)"),
    "SM205": ("inputs: {}  # def match(invoices)", "inputs: {invoices: sources.invoices}"),
    "SM206": ("def match(invoices, tolerance=0.5):", "def match(invoices, tolerance):"),
    "SM207": ("def match(invoices, connections):  # step declares no connections",
              "def match(invoices):"),
    "SM208": ("def draft(matches):  # step declares effects: [draft_bill]",
              "def draft(matches, effects):"),
    "SM209": ("connections: [xero]  # def summary(matches): no `connections`, no effect via xero",
              "connections: []  # or take `connections` where the credential is used"),
    "SM301": ("inputs: {options: {api_key: abc123}}", "connections: [xero]  # credential arrives here"),
    "SM401": ("version: 3  # steps/match.py changed since the base, version as at the base",
              "version: 4  # steps/match.py changed since the base"),
    "SM402": ("version: 2  # the base revision says version: 3", "version: 4"),
    "SM501": ('python: "3.13"  # no Python 3.13 on this machine',
              'python: "3.13"  # after `uv python install 3.13`'),
}

_BY_CODE = {spec[0]: spec for spec in SPECS}


def rationale(code: str) -> str:
    spec = _BY_CODE.get(code)
    return spec[3] if spec else ""


def summary(code: str) -> str:
    spec = _BY_CODE.get(code)
    return spec[2] if spec else ""


RULES: list[Rule] = [Rule(code, name, summ, rat, True, *EXAMPLES.get(code, ("", "")))
                     for code, name, summ, rat in SPECS]
