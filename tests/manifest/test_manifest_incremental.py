"""The one-line-edit shortcut in `yamlpos.load` (the language server's keystroke case) gives
exactly the tree and problems a full compose gives, and never changes the previous tree."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from manifest_kit import BASE
from stepsmith.runner.manifest import parse_manifest, yamlpos
from stepsmith.runner.manifest.yamlpos import compose, oneline

EXTRA = (
    "a: 1\na: 2\nb:\n  c: x\n  d:\n  - e: f\n    g: h\n  - 'q'\nz: \"w\"\n"
    "e:\nlast: plain text, with commas\n"
)


def dump(node):
    """A comparable picture of a positioned tree (positions, values, styles, order)."""
    out, stack = [], [node]
    while stack:
        x = stack.pop()
        if isinstance(x, yamlpos.YScalar):
            data = "NaN" if isinstance(x.data, float) and math.isnan(x.data) else x.data
            out.append(("S", x.pos, repr(data), type(data).__name__, x.style, x.text, x.tagged))
        elif isinstance(x, yamlpos.YMap):
            out.append(("M", x.pos, x.flow, list(x.index), repr(x.data)))
            for p in reversed(x.pairs):
                stack += [p.value, p.key]
        elif isinstance(x, yamlpos.YSeq):
            out.append(("Q", x.pos, x.flow, repr(x.data)))
            stack += list(reversed(x.items))
        else:
            out.append(x)
    return out


def full(text, path="m.yaml"):
    problems: list = []
    try:
        result = compose._compose(text, path, problems)
    except Exception:  # noqa: BLE001 - a syntax error: the shortcut must not have applied
        return None
    return result


def incremental(old_text, new_text, path="m.yaml"):
    yamlpos.clear_cache()
    before = yamlpos.load(old_text, path)
    snapshot = dump(before.root)
    result = oneline._reuse_after_one_line_edit(path, new_text)
    assert dump(before.root) == snapshot, "the previous tree was modified"
    return result


def assert_same(old_text, new_text):
    result = incremental(old_text, new_text)
    if result is None:
        return False
    ref = full(new_text)
    assert ref is not None and ref.root is not None, (old_text, new_text)
    assert dump(result.root) == dump(ref.root), new_text
    assert [(p.code, p.message, p.span) for p in result.problems] == [
        (p.code, p.message, p.span) for p in ref.problems]
    return True


def _edit(text, old, new):
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize("old,new", [
    ("explanation: Pair each invoice with its purchase order.",
     "explanation: Pair each invoice with its purchase order, then stop."),
    ("code: steps/match.py:match", "code: steps/match.py:matches"),
    ('tolerance: "0.50"', 'tolerance: "0.75"'),
    ("workflow: invoice-matching", "workflow: invoice-matching-2"),
    ("version: 3", "version: 4"),            # int stays int
    ("version: 3", "version: three"),        # int becomes text
    ("version: 3", "version: 3.10"),         # and a float
    ("version: 3", "version: null"),
    ("explanation: Draft a bill for each clean match.", "explanation: Draft at 07:00, ref#1"),
])
def test_value_edits_take_the_shortcut_and_match_a_full_compose(old, new):
    assert assert_same(BASE, _edit(BASE, old, new))


@pytest.mark.parametrize("old,new", [
    # anything that could change how the line (or the next lines) read: composed in full
    ("explanation: Pair each invoice with its purchase order.", "explanation: Pair: each"),
    ("explanation: Pair each invoice with its purchase order.", "explanation: Pair # comment"),
    ("explanation: Pair each invoice with its purchase order.", "explanation: Pair "),
    ("explanation: Pair each invoice with its purchase order.", "explanation: &a Pair"),
    ("explanation: Pair each invoice with its purchase order.", "explanation: *a"),
    ("explanation: Pair each invoice with its purchase order.", "explanation: !!str Pair"),
    ("explanation: Pair each invoice with its purchase order.", 'explanation: "Pair'),
    ("explanation: Pair each invoice with its purchase order.", "explanation: [Pair]"),
    ("explanation: Pair each invoice with its purchase order.", "explanation: |"),
    ("explanation: Pair each invoice with its purchase order.", "explanation:Pair"),
    ("explanation: Pair each invoice with its purchase order.", "explanation2: Pair"),
    ('tolerance: "0.50"', 'tolerance: "0.50\\n"'),
    ('tolerance: "0.50"', "tolerance: 0.50"),  # quoted -> plain changes the style: full
    ("cron: \"0 7 * * 1-5\"", "cron: \"0 8 * * 1-5\""),  # inside a flow mapping
    ("  - id: match", "  - id: match\t"),
])
def test_risky_edits_are_composed_in_full(old, new):
    new_text = _edit(BASE, old, new)
    assert incremental(BASE, new_text) is None
    # and the public API still gives the full answer
    yamlpos.clear_cache()
    yamlpos.load(BASE, "m.yaml")
    got = parse_manifest(new_text, "m.yaml")
    yamlpos.clear_cache()
    ref = parse_manifest(new_text, "m.yaml")
    assert [(p.code, p.message, p.span) for p in got.problems] == [
        (p.code, p.message, p.span) for p in ref.problems]


def test_empty_value_then_text_without_space_is_not_a_value():
    text = "a:\nb: 1\n"
    assert incremental(text, "a:x\nb: 1\n") is None


def test_duplicate_keys_keep_the_first_value_and_the_problem():
    text = "a: 1\na: 2\nb: x\n"
    assert assert_same(text, "a: 1\na: 3\nb: x\n")
    assert assert_same(text, "a: 5\na: 2\nb: x\n")
    yamlpos.clear_cache()
    yamlpos.load(text, "m.yaml")
    doc = parse_manifest("a: 5\na: 2\nb: x\n", "m.yaml")
    assert doc.data == {"a": 5, "b": "x"}
    assert [p.code for p in doc.problems if p.code == "SM002"] == ["SM002"]


def test_block_collection_end_follows_its_last_value():
    text = "steps:\n  - id: a\n    explanation: short\n"
    assert assert_same(text, "steps:\n  - id: a\n    explanation: a much longer text\n")
    yamlpos.clear_cache()
    yamlpos.load(text, "m.yaml")
    doc = parse_manifest("steps:\n  - id: a\n    explanation: a much longer text\n", "m.yaml")
    assert doc.locate(("steps",)).end_column == len("    explanation: a much longer text")


def test_same_text_again_and_a_different_path_are_independent():
    yamlpos.clear_cache()
    a = parse_manifest(BASE, "one.yaml")
    b = parse_manifest(BASE, "one.yaml")
    assert dump(a.root) == dump(b.root)
    other = _edit(BASE, "version: 3", "version: 9")
    c = parse_manifest(other, "two.yaml")  # nothing cached for two.yaml
    assert c.data["version"] == 9 and b.data["version"] == 3


def test_random_single_line_edits_match_a_full_compose():
    rng = random.Random(20261202)
    texts = [BASE, EXTRA]
    alphabet = list("abcXYZ019 :#-,.'\"[]{}!&*?|>%@`\\\t\u00a0é😀") + [
        "  ", ": ", " #", "null", "true", "0x1F", "3.10", "~", ".inf"]
    hits = 0
    for _ in range(3000):
        text = rng.choice(texts)
        lines = text.split("\n")
        k = rng.randrange(len(lines))
        line = lines[k]
        cut = rng.randrange(len(line) + 1)
        if ": " in line and rng.random() < 0.7:
            cut = max(cut, line.index(": ") + 2)
        op = rng.random()
        piece = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4)))
        if op < 0.5:
            new = line[:cut] + piece + line[cut:]
        elif op < 0.8:
            new = line[:cut] + line[cut + 1:]
        else:
            new = line[:cut] + piece
        if new == line:
            continue
        lines[k] = new
        hits += assert_same(text, "\n".join(lines))
    assert hits > 300  # the shortcut is exercised, not just skipped


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab :#-,.'\"[]{}!&*|>0é\t")), max_size=12))
def test_any_new_explanation_text_matches_a_full_compose(value):
    old = "explanation: Pair each invoice with its purchase order."
    assert_same(BASE, _edit(BASE, old, "explanation: " + value))


def test_a_broken_keystroke_in_between_still_matches_a_full_compose():
    yamlpos.clear_cache()
    good = BASE
    broken = _edit(BASE, "version: 3", 'version: "3')  # unclosed quote: a syntax error
    repaired = _edit(BASE, "version: 3", "version: 4")
    yamlpos.load(good, "m.yaml")
    assert yamlpos.load(broken, "m.yaml").root is None
    result = yamlpos.load(repaired, "m.yaml")  # one line away from the last good text
    assert dump(result.root) == dump(full(repaired).root)


def test_the_memory_is_bounded():
    yamlpos.clear_cache()
    for i in range(40):
        yamlpos.load(BASE, f"m{i}.yaml")
    assert len(oneline._RECENT) <= oneline._RECENT_MAX
    big = "a: " + "x" * (oneline._RECENT_CHARS // 4 + 10) + "\n"
    yamlpos.load(big, "big.yaml")
    assert "big.yaml" not in oneline._RECENT
