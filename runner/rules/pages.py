"""One documentation page per rule, generated from the catalogue (issue 20): what the rule
refuses, why, an example it refuses and a close one it accepts. `docs/rules/<CODE>.md` in the
clone (checked in, drift-tested like the schema), `stepsmith/docs/rules/` in an installed
package; every finding links to its page: `url` in `check --format json`, and
`codeDescription.href` in the language server's diagnostics.

    python -m stepsmith.runner.rules.pages --write docs/rules     # regenerate
    python -m stepsmith.runner.rules.pages --check docs/rules     # exit 1 on drift
"""

from __future__ import annotations

import sys
from pathlib import Path

_KIND = {"SS": ("step code", "python"), "SM": ("the manifest", "yaml"),
         "SF": ("fixtures", "text")}


def page(rule, index_link: bool = True) -> str:
    """The rule's page (markdown). `index_link`: end with a link to the index beside it (not
    where the page is embedded alone, as SARIF's rule help)."""
    what, lang = _KIND.get(rule.code[:2], ("workflows", "text"))
    out = [f"# {rule.code} {rule.name}", "", f"Checked in {what}. {rule.summary}", "",
           "## Why", "", rule.rationale, ""]
    if rule.example:
        out += ["## Refused", "", f"```{lang}", rule.example.rstrip("\n"), "```", ""]
    if rule.fix:
        out += ["## Accepted", "", f"```{lang}", rule.fix.rstrip("\n"), "```", ""]
    out += ["A security rule: no editor action suppresses it." if rule.security else
            "Not a security rule.", ""]
    if index_link:
        out += ["All rules: [index](index.md).", ""]
    return "\n".join(out)


def _indent(snippet: str) -> str:
    return "\n".join("    " + line if line else "" for line in snippet.rstrip("\n").splitlines())


def text(rule) -> str:
    """The rule in plain text, as `stepsmith rule CODE` prints it (and SARIF's help text)."""
    out = [f"{rule.name} ({rule.code})", "", rule.summary, "", "Why:", f"    {rule.rationale}"]
    if not rule.security:
        out += ["", "This rule may be suppressed by a fix-it."]
    if rule.example:
        out += ["", "Refused:", _indent(rule.example)]
    if rule.fix:
        out += ["", "Allowed instead:", _indent(rule.fix)]
    return "\n".join(out)


def pages() -> dict[str, str]:
    from stepsmith.runner.rules import all_rules

    every = all_rules()
    out = {f"{r.code}.md": page(r) for r in every}
    index = ["# The rules", "", "Every finding of `stepsmith check`, the language server and "
             "the sandbox's gate has one of these codes (`stepsmith rule CODE` prints a rule).",
             "", "| code | name | what it refuses |", "|---|---|---|"]
    index += [f"| [{r.code}]({r.code}.md) | {r.name} | {r.summary.replace('|', '/')} |"
              for r in every]
    out["index.md"] = "\n".join(index) + "\n"
    return out


_BASE: list = []


def rule_url(code: str) -> str | None:
    """The `file://` URL of the code's page, installed with the package or in the clone;
    None when there is none."""
    if not _BASE:
        here = Path(__file__).resolve()
        found = None
        for folder in (here.parents[2] / "docs" / "rules",  # installed: stepsmith/docs/rules
                       here.parents[2].parent / "docs" / "rules"):  # clone: docs/rules
            if (folder / "index.md").is_file():
                found = folder
                break
        _BASE.append(found)
    folder = _BASE[0]
    if folder is None or not (folder / f"{code}.md").is_file():
        return None
    return (folder / f"{code}.md").as_uri()


def https_rule_url(template: object, code: str) -> str | None:
    """A link to the code's page that any reader can open, from a configured https location:
    `template` holds `{code}` (https://example.org/rules/{code}.md), or is a base the page's
    file name is appended to (https://example.org/rules/ -> .../SS101.md). None for anything
    else: a file:// URL names the disk of the machine that made it, not the reader's."""
    if not isinstance(template, str) or not template.startswith("https://") or \
            any(c.isspace() for c in template):
        return None
    if "{code}" in template:
        return template.replace("{code}", code)
    return template.rstrip("/") + f"/{code}.md"


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("--write", "--check"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    folder = Path(argv[1])
    want = pages()
    if argv[0] == "--write":
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.md"):
            if stale.name not in want:
                stale.unlink()
        for name, text in want.items():
            (folder / name).write_text(text, encoding="utf-8")
        return 0
    have = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.md")}
    if have != want:
        print(f"{folder} is out of date; regenerate it with "
              f"`python -m stepsmith.runner.rules.pages --write {folder}`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
