"""`stepsmith reach --diff [REV]`: render what a change widens (text, json, markdown).

Only what changed is shown; a change that widens is marked, and `--fail-on-widen` turns it into
exit status 1 so CI can ask for a security review. Exit status: 0 shown, 1 widened (with
`--fail-on-widen`) or a manifest unreadable in the work tree, 2 usage or git error.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

# manifest data reaches this output: the one display filter (runner/display.py)
from stepsmith.runner.display import display_text, json_text
from stepsmith.runner.display import safe_print as print
from stepsmith.runner.reach import REACH_SENTENCE
from stepsmith.runner.revisions import GitError, reach_diff

NO_CHANGE = "No change in what any step can reach."


def run_diff(args, path: Path) -> int:
    try:
        diff = reach_diff(path, args.diff)
    except GitError as exc:
        print(f"stepsmith reach --diff: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        out = diff.to_json()
        out["sentence"] = REACH_SENTENCE
        sys.stdout.write(json_text(json.dumps(out, indent=2, ensure_ascii=False)) + "\n")
    elif args.format == "markdown":
        sys.stdout.write(display_text(markdown(diff)))
    else:
        sys.stdout.write(display_text(text(diff)))
    if diff.undecided:
        return 1
    return 1 if args.fail_on_widen and diff.widens else 0


def _mark(change) -> str:
    return "widens" if change.widens else ""


def display(text: str) -> str:
    """Hostile manifest text shown safely in a terminal: control characters (C0 but tab, DEL,
    C1) become visible escapes."""
    return "".join(ch if ch == "\t" or not (ord(ch) < 32 or 127 <= ord(ch) < 160)
                   else ascii(ch)[1:-1] for ch in str(text))


def _here(diff, rel: str) -> str:
    """A repository-relative path as the terminal's user can paste it: relative to the current
    folder when inside it."""

    full = os.path.join(diff.top, rel) if diff.top else rel
    shown = os.path.relpath(full)
    return full if shown.startswith("..") else shown


def text(diff) -> str:
    lines = []
    for w in diff.changed:
        head = f"{display(_here(diff, w.path))} ({display(w.workflow)}): {w.status}"
        if w.before_path and w.before_path != w.path:
            head += f", was {display(_here(diff, w.before_path))}"
        lines.append(head)
        if w.error:
            lines.append(f"  cannot compare: {display(w.error)}")
        for c in w.changes:
            flag = "  + " if c.widens else "    "
            lines.append(f"{flag}{display(c.step)}: {display(c.describe())}")
    if not lines:
        return f"{NO_CHANGE} (compared with {display(diff.rev)})\n"
    n = sum(1 for w in diff.workflows for c in w.changes if c.widens)
    lines.append("")
    if diff.undecided:
        lines.append(f"{len(diff.undecided)} workflow(s) could not be read in the work tree: "
                     "what they widen is unknown (run `stepsmith check`).")
    lines.append(f"{n} change(s) widen what a step can reach since {display(diff.rev)} "
                 "(marked +)." if n else
                 f"Nothing widens what a step can reach since {display(diff.rev)}.")
    return "\n".join(lines) + "\n"


# Markdown punctuation (backslash-escaped), and where GitHub and GitLab would link what follows
# once rendered: @mentions, #123 / !12 / ~label / %milestone / $12 / &12 references, scheme://
# and www. autolinks, user@host. A backslash does not stop those (they are found in the
# rendered text): a zero-width space after the sigil does, and shows nothing (as Renovate does).
_MD_PUNCT = "\\`*_[]|<>~&"
_MD_SPECIAL = re.compile(r"(?i)www(?=\.)|:(?=//)|[@#!~%$&](?=\w)|[\\`*_\[\]|<>~&]")
_ZWSP = "&#8203;"


def md_plain(text: str) -> str:
    """Plain text for a Markdown table cell: no markup, no links or references, no pipes, no
    line breaks."""

    def one(m: re.Match) -> str:
        s = m.group(0)
        out = "\\" + s if s in _MD_PUNCT else s
        linked = s.lower() == "www" or s == ":" or (
            s in "@#!~%$&" and m.end() < len(m.string) and (m.string[m.end()].isalnum()
                                                            or m.string[m.end()] == "_"))
        return out + _ZWSP if linked else out

    return _MD_SPECIAL.sub(one, text.replace("\r", " ").replace("\n", " "))


def _code(text: str) -> str:
    """A Markdown code span of `text`: nothing in it is markup, a link or a reference."""
    text = text.replace("\r", " ").replace("\n", " ")
    fence = "`" * (max((len(r) for r in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def markdown(diff) -> str:
    out = [f"### What this change widens (compared with {_code(diff.rev)})", ""]
    if not diff.changed:
        out += [NO_CHANGE, ""]
    for w in diff.changed:
        title = f"**{md_plain(w.workflow)}** — {md_plain(w.path)} ({w.status})"
        if w.version_before is not None and w.version_after is not None:
            title += (f", version {w.version_after} (not increased)"
                      if w.version_before == w.version_after
                      else f", version {w.version_before} → {w.version_after}")
        out += [title, ""]
        if w.error:
            out += [f"> cannot compare: {md_plain(w.error)}", ""]
        if w.changes:
            out += ["| | step | change |", "|---|---|---|"]
            for c in w.changes:
                out.append(f"| {'⚠️ widens' if c.widens else ''} | {md_plain(c.step)} | "
                           f"{md_plain(c.describe())} |")
            out.append("")
    out += [f"_{REACH_SENTENCE}_", ""]
    return "\n".join(out)
