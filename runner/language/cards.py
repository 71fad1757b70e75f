"""Hover cards as Markdown: reach card, rule card, pinned-clock note."""

from __future__ import annotations

from stepsmith.runner import rules
from stepsmith.runner.reach import REACH_SENTENCE

from . import markdown as md

NETWORK_MEANING = {
    "none": "no network at all: the sandbox has no network interface beyond loopback",
    "public_egress": "may reach the public internet, only in an explicitly live run "
    "(fixture tests serve it from recorded results; a failed live run is never retried)",
}

PINNED_TIME = (
    "**Pinned clock.** Inside the stepsmith sandbox `{call}` returns the run's pinned "
    "*evaluation time* (the fixture's `evaluation_time`, or `--at`), never the host clock; "
    "with no pinned time it is an error. Runs are reproducible because of this. A naive "
    "`now()` / `today()` is that time in the workflow's timezone (top-level `timezone:`, else "
    "the schedule's, else UTC); `now(tz)` gives the same instant in `tz`."
)


def _names(values) -> str:
    return md.names(values)


def _described(names, descriptions) -> str:
    """Each name with what it is: `invoices` (connection xero), `post_summary` (send to channel
    finance-requests)."""
    if not names:
        return _names(names)
    described = dict(descriptions)
    return ", ".join(md.code(n) + (f" ({md.plain(described[n])})" if described.get(n) else "")
                     for n in names)


def reach_card(row) -> str:
    """The reach card of one step: its record (`StepReach`, the one `stepsmith reach`, MCP and
    `stepsmith/reach` send) as Markdown, ending with the honest sentence."""

    # every field is workflow data (issue 18): code spans and plain text, escaped
    lines = [f"### Step {md.code(row.step_id)} — what it can reach", ""]
    if row.reaches_nothing:
        lines.append("**Reaches nothing**: no network, no connections, no sources, no effects.")
        lines.append("")
    lines += [
        (f"- **network**: {md.code(row.network)} — "
         f"{NETWORK_MEANING.get(row.network) or md.plain(row.network)}"),
        f"- **connections**: {_names(row.connections)}",
        f"- **sources read**: {_described(row.sources, row.source_origins)}",
        f"- **effects**: {_described(row.effects, row.effect_targets)}",
        f"- **code**: {md.code(row.code)}",
        "",
        f"> {md.plain(row.explanation.strip())}",
        "",
        f"*{REACH_SENTENCE}*",
    ]
    return "\n".join(lines)


def rule_card(code: str, message: str | None = None) -> str | None:
    """Code, summary and rationale of a rule (None for an unknown code)."""
    try:
        rule = rules.get(code)
    except Exception:
        return None
    out = [f"### {rule.code} `{rule.name}`", ""]
    if message:  # a problem's message quotes workflow data (keys, names): shown as text
        out += [f"**{md.plain(message)}**", ""]
    out += [rule.summary, "", f"*Why:* {rule.rationale}"]
    if rule.security:
        out += ["", "Security rule: it cannot be suppressed."]
    if getattr(rule, "fix", "") and not rule.fix.startswith("("):
        out += ["", "Accepted instead:", "", "```python", rule.fix.rstrip("\n"), "```"]
    out += ["", f"`stepsmith rule {rule.code}` prints this in a terminal."]
    return "\n".join(out)


def rule_json(code: str) -> dict | None:
    try:
        rule = rules.get(code)
    except Exception:
        return None
    return {
        "code": rule.code,
        "name": rule.name,
        "summary": rule.summary,
        "rationale": rule.rationale,
        "security": rule.security,
        "markdown": rule_card(rule.code),
    }


def pinned_time_card(call: str) -> str:
    return PINNED_TIME.format(call=call)
