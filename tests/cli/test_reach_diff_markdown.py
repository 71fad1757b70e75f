"""`reach --diff --format markdown` is a pull-request comment: what a workflow's data holds
(folder names, workflow names, an unreadable manifest's error) must render as the text it is.
Rendered with GitHub's own Markdown (cmark-gfm, through cmarkgfm, with its autolink and table
extensions); the references GitHub and GitLab link after rendering (@mentions, #123, !12,
~label, %milestone, $12, &12) are checked on the rendered text, as their filters see it."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from gitkit import committed_workflow
from manifest_kit import BASE, write_workflow
from stepsmith.runner.cli import main
from stepsmith.runner.cli.reach_diff import markdown
from stepsmith.runner.revisions.reach_changes import (
    ReachChange,
    ReachDiff,
    WorkflowReachDiff,
)

ZWSP = "\u200b"
# what GitHub (mentions, issue references) and GitLab (references) link in rendered text
LINKED = re.compile(r"(?<![\w`])@[A-Za-z0-9]|#\d|![0-9]|~\w|%\w|\$\d|&\d|\w+://|www\.|"
                    r"\w@\w", re.IGNORECASE)
HOSTILE = ["@octocat", "@org/team", "#123", "owner/repo#7", "GH-1 !12 ~label %mile $5 &8",
           "www.evil.example", "WWW.evil.example", "http://evil.example/x",
           "https://evil.example", "ftp://evil.example", "mailto:a@evil.example",
           "user@evil.example", "&#64;octocat", "&commat;octocat", "\\@octocat",
           "<https://evil.example>", "[x](https://evil.example)", "![i](https://e.x/i.png)"]


class _Text(HTMLParser):
    """The rendered text: `parts` outside code (where GitHub's and GitLab's reference filters
    look), `seen` all of it; `links` counts <a> and <img>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.seen: list[str] = []
        self.links = 0
        self.code = 0

    def handle_starttag(self, tag, attrs):
        self.links += tag in ("a", "img")
        self.code += tag in ("code", "pre")

    def handle_endtag(self, tag):
        self.code -= tag in ("code", "pre")

    def handle_data(self, data):
        self.seen.append(data)
        if not self.code:
            self.parts.append(data)


def render(md: str) -> _Text:
    html = cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE)
    out = _Text()
    out.feed(html)
    return out


def _diff(text: str) -> ReachDiff:
    change = ReachChange("connection-granted", "match", None, text, widens=True)
    return ReachDiff(text, (WorkflowReachDiff(text, f"{text}/workflow.yaml", None, "unreadable",
                                              (change,), error=f"at HEAD: {text}"),))


def shown_as_text(md: str, text: str) -> int:
    """How many times `text` is shown, after checking nothing renders as a link or a
    reference (and nothing is lost: the reader sees exactly what the data says)."""
    rendered = render(md)
    assert rendered.links == 0
    shown = "".join(rendered.parts)
    assert not LINKED.search(shown), shown
    return "".join(rendered.seen).replace(ZWSP, "").count(text)


@pytest.mark.parametrize("text", HOSTILE)
def test_nothing_in_the_data_renders_as_a_link_or_a_reference(text):
    assert shown_as_text(markdown(_diff(text)), text) == 5  # rev, workflow, path, error, change


def test_a_folder_named_for_a_user_does_not_ping_them(tmp_path, monkeypatch, capsys):
    repo = committed_workflow(tmp_path)
    write_workflow(repo / "@octocat" / "#42", BASE.replace("invoice-matching", "pinged"))
    monkeypatch.chdir(repo)
    assert main(["reach", "--diff", "HEAD", "--format", "markdown", "."]) == 0
    rendered = render(capsys.readouterr().out)
    shown = "".join(rendered.parts)
    assert "@octocat/#42/workflow.yaml" in shown.replace(ZWSP, "")
    assert rendered.links == 0 and not LINKED.search(shown), shown


def _report(text: str):
    from pathlib import Path

    from stepsmith.runner.app.reach import ReachReport, WorkflowReach
    from stepsmith.runner.pythons.report import WorkflowPython
    from stepsmith.runner.reach import StepReach

    manifest = Path("wf/workflow.yaml")  # a hostile folder name: the --diff test above
    step = StepReach(text, "f", "steps/f.py:f", "none", (text,), ("s",), ("e",), text, False,
                     source_origins=(("s", f"channel {text}"),), effect_targets=(("e", text),))
    return ReachReport((WorkflowReach(manifest, text, 1, WorkflowPython(manifest, None),
                                      (step,)),
                        WorkflowReach(manifest, None, None, WorkflowPython(manifest, None),
                                      error=f"SM005 at 1:1: {text}")))


@pytest.mark.parametrize("text", HOSTILE)
def test_the_reach_report_as_markdown_renders_its_data_as_text(text):
    """`reach --format markdown` (no --diff): the whole report, a table per workflow."""
    from stepsmith.runner.cli.reach import markdown as report_markdown

    # the workflow, the step id, connection, source origin, effect target and the unreadable
    # one's error
    assert shown_as_text(report_markdown(_report(text)), text) == 6


def test_reach_as_markdown_from_the_command_line(tmp_path, monkeypatch, capsys):
    write_workflow(tmp_path / "wf", BASE)
    monkeypatch.chdir(tmp_path)
    assert main(["reach", "--format", "markdown", "wf"]) == 0
    md = capsys.readouterr().out
    rendered = render(md)
    assert "purchase_orders (connection xero)" in "".join(rendered.seen)
    assert md.count("| match |") == 1 and md.rstrip().endswith("not a review of what its code "
                                                               "does._")
