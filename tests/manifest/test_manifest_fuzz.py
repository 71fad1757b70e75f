"""parse_manifest never raises, whatever the text; every problem has a sane span and a code
from the catalogue."""

import re
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st
from manifest_kit import BASE
from stepsmith.runner.lines import split_lines
from stepsmith.runner.manifest import parse_manifest
from stepsmith.runner.rules.manifest_rules import SPECS

CODES = {c for c, *_ in SPECS}


def _sane(doc, text):
    n_lines = len(split_lines(text))  # the editor's lines: a span past them is a wrong span
    for p in doc.problems:
        assert p.code in CODES
        assert 1 <= p.span.line <= n_lines and p.span.column >= 0
        assert p.span.end_line <= n_lines, (p, n_lines)
        assert (p.span.end_line, p.span.end_column) >= (p.span.line, p.span.column)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(list("ab:-[]{},'\"\t\n #&*!|>?%@`~0.é") + ["steps:", "  - id: ", "\n  "]),
                max_size=120).map("".join))
def test_random_yamlish_text_never_raises(text):
    _sane(parse_manifest(text), text)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, len(BASE) - 1), st.integers(0, 40), st.text(max_size=8))
@example(754, 14, "\r0")  # libyaml put the end of the stream on a line after the last
def test_mutated_base_never_raises(at, cut, insert):
    text = BASE[:at] + insert + BASE[at + cut:]
    _sane(parse_manifest(text), text)


def test_every_emitted_code_is_in_the_catalogue():
    root = Path(__file__).resolve().parents[2] / "runner" / "manifest"
    used = set()
    for f in root.glob("*.py"):
        used |= set(re.findall(r'"(SM\d{3})"', f.read_text()))
    assert used and used <= CODES, used - CODES
