"""Workflow data in hovers cannot become Markdown (links, `command:` links,
remote images, HTML). The escaping helper (runner/language/markdown.py) is checked against a
CommonMark implementation, markdown-it-py, on generated text; then the hovers that show
workflow data (value hover, input hover, reach card) are rendered with hostile data."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from stepsmith.runner.language import markdown as md
from stepsmith.runner.language.cards import reach_card
from stepsmith.runner.language.manifest_services import input_hover
from stepsmith.runner.language.values import TracedValues, value_hover
from stepsmith.runner.manifest import parse_manifest
from stepsmith.runner.reach import reach_rows
from stepsmith.runner.sandbox.trace import LineValue, ValueSnapshot

# CommonMark plus the GitHub extensions VS Code's renderer has (tables, strikethrough)
MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])

HOSTILE = [
    "`",
    "``` `` `",
    "x` ![t](http://evil.example/pixel.png) `",
    "`[run](command:workbench.action.terminal.new)`",
    "<img src=x onerror=alert(1)>",
    "<a href='command:x'>a</a>",
    "<http://evil.example>",
    "[a]: http://evil.example\n\n[a]",
    "**bold** _em_ ~~s~~ | a | b |\n|---|---|",
    "# heading\n- item\n1. one\n> quote\n---\n===",
    "&amp; &#x41; \\` \\",
    "a\n\n![x](http://evil.example/p.png)",
    "\x00 nul",
    "  spaced  ",
    " ` ",
]
# what rendered workflow data may never produce
FORBIDDEN = {"link_open", "image", "html_inline", "html_block", "em_open", "strong_open",
             "s_open", "heading_open", "bullet_list_open", "ordered_list_open",
             "blockquote_open", "hr", "table_open", "fence", "code_inline", "code_block"}
text_st = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
markdownish = st.text(st.sampled_from(list("`*_[]()!<>#-+|~&\\:/ \n\r\tax1.=)")), max_size=40)


def tokens(markdown: str):
    out = []
    for t in MD.parse(markdown):
        out.append(t)
        out.extend(t.children or [])
    return out


def kinds(markdown: str) -> set[str]:
    return {t.type for t in tokens(markdown)}


def expected_code(text: str) -> str:
    return text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ").replace("\0", "\ufffd")


@settings(max_examples=400, deadline=None)
@given(st.one_of(text_st, markdownish))
def test_code_is_one_code_span_holding_exactly_the_text(text):
    rendered = md.code(text)
    spans = [t for t in tokens(rendered) if t.type == "code_inline"]
    assert len(spans) == 1, (text, rendered, kinds(rendered))
    assert spans[0].content == (expected_code(text) or " "), (text, rendered)
    assert not (kinds(rendered) & (FORBIDDEN - {"code_inline"})), (text, rendered)


@settings(max_examples=400, deadline=None)
@given(st.one_of(text_st, markdownish))
def test_fence_is_one_block_holding_exactly_the_text(text):
    rendered = md.fence(text, "diff")
    blocks = [t for t in tokens(rendered) if t.type == "fence"]
    assert len(blocks) == 1 and blocks[0].info == "diff", (text, rendered)
    body = text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
    assert blocks[0].content == (body if body.endswith("\n") or not body else body + "\n")
    assert len([t for t in tokens(rendered) if t.type != "fence"]) == 0, rendered


def _shown_text(markdown: str) -> str:
    return "".join(t.content for t in tokens(markdown) if t.type == "text")


@settings(max_examples=400, deadline=None)
@given(st.one_of(text_st, markdownish))
def test_plain_forms_no_markdown_and_shows_every_character(text):
    rendered = md.plain(text)
    assert not (kinds(rendered) & FORBIDDEN - {"code_block"}), (text, rendered, kinds(rendered))
    # every non-space character is shown, in order (line breaks and indentation may change)
    want = "".join(expected_code(text).split())
    assert "".join(_shown_text(rendered).split()) == want or "code_block" in kinds(rendered)


def test_hostile_samples():
    for text in HOSTILE:
        assert kinds(md.plain(text)) <= {"paragraph_open", "paragraph_close", "inline", "text",
                                         "softbreak", "hardbreak"}, text
        assert [t.content for t in tokens(md.code(text)) if t.type == "code_inline"] == [
            expected_code(text)], text
        assert not kinds(md.fence(text)) & {"link_open", "image", "html_block", "html_inline"}


# ------------------------------------------------------------------ the hovers

STEP = "def f(x):\n    y = x\n    return y\n"
EVIL_VALUE = "'` ![t](http://evil.example/pixel.png) [run](command:workbench.action.terminal.new) `'"


def test_a_value_hover_with_a_hostile_value_and_fixture_name():
    snap = ValueSnapshot((("y", EVIL_VALUE),))
    later = ValueSnapshot((("y", "'<img src=x onerror=alert(1)>'"),))
    traced = TracedValues("c`ase ![i](http://evil.example/f.png)", STEP,
                          (LineValue(2, 2, snap, later),), frozenset({1, 2, 3}))
    hover = value_hover(STEP, traced, 2, 4)
    assert hover is not None
    found = kinds(hover)
    assert not found & {"link_open", "image", "html_inline", "html_block"}, (hover, found)
    spans = [t.content for t in tokens(hover) if t.type == "code_inline"]
    assert f"y = {EVIL_VALUE}" in spans and "y = '<img src=x onerror=alert(1)>'" in spans
    assert "c`ase ![i](http://evil.example/f.png)" in spans


HOSTILE_MANIFEST = """\
workflow: evil
version: 1
python: "3.11"
trigger: {manual: {}}
connections:
  ledger: {description: "![pixel](http://evil.example/c.png) <b>hi</b>"}
sources:
  rows: {connection: ledger, description: "[click](command:workbench.action.terminal.new)"}
steps:
  - id: read
    explanation: "Reads. ![pixel](http://evil.example/e.png) <img src=x> [a](command:x)"
    code: steps/read.py:read
    inputs:
      rows: sources.rows
      "p`![x](http://evil.example/k.png)`": "v` ![x](http://evil.example/v.png) `"
  - id: other
    explanation: ok
    code: steps/read.py:read
    inputs:
      rows: steps.read.output
"""


def test_input_hovers_and_the_reach_card_with_hostile_manifest_data():
    doc = parse_manifest(HOSTILE_MANIFEST, "workflow.yaml")
    shown = []
    for key in ("rows", "p`![x](http://evil.example/k.png)`"):
        shown.append(input_hover(doc, ("steps", 0, "inputs", key)))
    shown.append(input_hover(doc, ("steps", 1, "inputs", "rows")))
    assert all(shown), shown
    rows = reach_rows(parse_manifest(HOSTILE_MANIFEST.replace(
        '      "p`![x](http://evil.example/k.png)`": "v` ![x](http://evil.example/v.png) `"\n',
        ""), "workflow.yaml").workflow)
    shown += [reach_card(r) for r in rows]
    for hover in shown:
        found = kinds(hover)
        assert not found & {"link_open", "image", "html_inline", "html_block"}, (hover, found)
    joined = " ".join(_shown_text(h) + " ".join(t.content for t in tokens(h)
                                                 if t.type == "code_inline") for h in shown)
    for piece in ("![pixel](http://evil.example/e.png)", "[click](command:workbench.action.terminal.new)",
                  "<b>hi</b>", "p`![x](http://evil.example/k.png)`"):
        assert piece in joined, piece  # shown as text, not rendered


def test_a_problem_message_quoting_a_hostile_key_renders_as_text():
    doc = parse_manifest(HOSTILE_MANIFEST.replace(
        "version: 1\n", "version: 1\n\"k` ![x](http://evil.example/u.png) [a](command:x) `\": 1\n"),
        "workflow.yaml")
    (problem,) = [p for p in doc.problems if "u.png" in p.message]
    from stepsmith.runner.language.manifest_services import manifest_hover

    text, _ = manifest_hover(doc, problem.span.line, problem.span.column)
    assert not kinds(text) & {"link_open", "image", "html_inline", "html_block"}, text
    assert "![x](http://evil.example/u.png)" in _shown_text(text)
