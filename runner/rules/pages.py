"""The rule pages: one Markdown page per rule (runner/rules/pages/<CODE>.md) and an index,
generated from the catalogue, checked in, shipped in the package, and linked from every finding
(`rule_url`: JSON `url`, SARIF `helpUri`, the LSP's `codeDescription.href`).

`python -m stepsmith.runner.rules.pages --write` regenerates them; a test fails when they drift.
"""

from __future__ import annotations

import sys
from pathlib import Path

PAGES = Path(__file__).resolve().parent / "pages"


def page(rule) -> str:
    kind = "security rule" if rule.security else "rule"
    out = [f"# {rule.code} {rule.name}", "", f"_{kind}_", "", rule.summary, "",
           "## Why", "", rule.rationale, ""]
    if rule.example:
        out += ["## Refused", "", *_fenced(rule.example), ""]
    if rule.fix:
        out += ["## Accepted", "", *_fenced(rule.fix), ""]
    out += ["See every rule: [the catalogue](README.md), or `stepsmith rules`.", ""]
    return "\n".join(out)


def index(rules) -> str:
    out = ["# The rules", "", "Every finding stepsmith reports has a stable code. Step code: "
           "`SS`; manifest: `SM`; fixtures: `SF`.", "", "| code | name | what it refuses |",
           "|---|---|---|"]
    out += [f"| [{r.code}]({r.code}.md) | {r.name} | {_cell(r.summary)} |" for r in rules]
    return "\n".join(out) + "\n"


def _fenced(code: str) -> list[str]:
    """A code block whose fence is longer than any backtick run in the code (CommonMark)."""
    import re

    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, code.rstrip("\n"), fence]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def expected() -> dict[str, str]:
    """{file name: text} of every page as the catalogue makes it now."""
    from stepsmith.runner.rules import all_rules

    rules = all_rules()
    pages = {f"{r.code}.md": page(r) for r in rules}
    pages["README.md"] = index(rules)
    return pages


def write(folder: Path = PAGES) -> list[str]:
    folder.mkdir(exist_ok=True)
    want = expected()
    for stale in folder.glob("*.md"):
        if stale.name not in want:
            stale.unlink()
    for name, text in want.items():
        (folder / name).write_text(text, encoding="utf-8")
    return sorted(want)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        print("usage: python -m stepsmith.runner.rules.pages --write", file=sys.stderr)
        sys.exit(2)
    print(f"wrote {len(write())} pages to {PAGES}")
