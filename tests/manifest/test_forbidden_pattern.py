"""The forbidden input field names as the JSON Schema spells them (a regular expression, no
case-insensitive flag) mean exactly what `is_forbidden_field` means."""

from __future__ import annotations

import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st
from stepsmith.runner.manifest.forbidden import (
    FORBIDDEN_WORDS,
    LOWERS_TO_ASCII,
    forbidden_name_pattern,
    is_forbidden_field,
)

PATTERN = re.compile(forbidden_name_pattern().removesuffix("$") + r"\Z")


def test_the_characters_that_lower_to_ascii_letters_are_all_known():
    found: dict[str, str] = {}
    for cp in range(sys.maxunicode + 1):
        ch = chr(cp)
        low = ch.lower()
        if not ch.isascii() and low.isascii():
            found[low] = found.get(low, "") + ch
    assert found == LOWERS_TO_ASCII


NAMEISH = st.text(alphabet=st.sampled_from(sorted(set("".join(FORBIDDEN_WORDS)
                                                      + "".join(FORBIDDEN_WORDS).upper()
                                                      + "s_- \t\n\u212a\u0130xyz"))),
                  max_size=14)


@settings(max_examples=800, deadline=None)
@given(st.one_of(NAMEISH, st.sampled_from(["api_key", "API-KEY", " tokens ", "\u212aey",
                                            "access_token", "tokens\n", "Api Keys"])))
def test_the_pattern_is_the_predicate(name):
    assert (PATTERN.search(name) is not None) == is_forbidden_field(name), repr(name)
