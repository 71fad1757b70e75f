"""The SS303/SS305 name lists are computed facts, not guesses: recompute them here.

- every module reachable as a public attribute from the allowed modules (following only names
  the validator does not refuse) is either refused (MODULE_LEAK_NAMES) or a documented
  exemption (MODULE_LEAK_EXEMPT);
- the refused names do not collide with the public API of the values step code handles
  (false positives), apart from the one documented collision, `Match.string`;
- no public attribute of those values starts with a frame/code prefix.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from stepsmith.runner.validator import policy, validate

_spec = importlib.util.spec_from_file_location("module_facts", Path(__file__).with_name(
    "module_facts.py"))
facts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(facts)

ROOTS = sorted(policy.ALLOWED_MODULES | policy.NETWORK_MODULES)
DOCUMENTED_COLLISIONS = {"string"}  # re.Match.string: refused, `string.Formatter` traverses


def reachable_module_names() -> dict[str, str]:
    return facts.reachable_module_names(ROOTS, policy.MODULE_LEAK_NAMES)


def test_every_reachable_module_name_is_refused_or_exempt():
    found = reachable_module_names()
    unlisted = {name: path for name, path in found.items()
                if name not in policy.MODULE_LEAK_NAMES and name not in policy.MODULE_LEAK_EXEMPT}
    assert not unlisted, f"add to MODULE_LEAK_NAMES or MODULE_LEAK_EXEMPT: {unlisted}"


def test_the_measured_leaks_are_refused():
    for name in ("codecs", "builtins", "sys", "random", "enum", "functools", "os"):
        assert name in policy.MODULE_LEAK_NAMES


def public_names() -> set[str]:
    return facts.public_names(ROOTS)


def test_refused_names_do_not_collide_with_public_api():
    collisions = public_names() & (policy.MODULE_LEAK_NAMES | policy.MRO_NAMES
                                   | policy.FORMAT_METHODS | policy.SAMPLING_METHODS)
    expected = DOCUMENTED_COLLISIONS | {"mro", "format", "format_map", "samples"}
    assert collisions <= expected, collisions - expected


def test_frame_prefixes_only_hit_frame_internals():
    hits = {n for n in public_names() if n.startswith(policy.FRAME_PREFIXES)}
    assert hits <= {"gi_code", "gi_frame", "gi_running", "gi_suspended", "gi_yieldfrom"}, hits


def test_everyday_datetime_and_re_code_is_clean():
    source = (
        "import datetime\nimport re\n\n\n"
        "def f(text, when):\n"
        "    d = datetime.datetime.fromisoformat(when)\n"
        "    m = re.match(r'(\\d+)', text)\n"
        "    t = datetime.time(7, 0)\n"
        "    return d.time(), d.date(), t, m.group(1), m.re, m.span(), re.error\n"
    )
    assert validate(source) == []
