"""The SS303/SS305 name lists are computed facts, not guesses: recompute them here.

- every module reachable as a public attribute from the allowed modules (following only names
  the validator does not refuse) is either refused (MODULE_LEAK_NAMES) or a documented
  exemption (MODULE_LEAK_EXEMPT);
- the refused names do not collide with the public API of the values step code handles
  (false positives), apart from the one documented collision, `Match.string`;
- no public attribute of those values starts with a frame/code prefix.
"""

from __future__ import annotations

import datetime
import decimal
import fractions
import importlib
import json
import re
import statistics
import types
import urllib.error
import urllib.parse

from stepsmith.runner.validator import policy, validate

ROOTS = sorted(policy.ALLOWED_MODULES | policy.NETWORK_MODULES)

VALUE_TYPES = [
    str, bytes, int, float, complex, bool, list, dict, set, frozenset, tuple, range, slice,
    datetime.datetime, datetime.date, datetime.time, datetime.timedelta, datetime.timezone,
    decimal.Decimal, decimal.Context, re.Pattern, re.Match, statistics.NormalDist,
    json.JSONDecoder, json.JSONEncoder, json.JSONDecodeError, urllib.parse.ParseResult,
    urllib.parse.SplitResult, urllib.error.HTTPError, fractions.Fraction, Exception,
    types.GeneratorType, types.FunctionType, type(len),
]

DOCUMENTED_COLLISIONS = {"string"}  # re.Match.string: refused, `string.Formatter` traverses


def reachable_module_names() -> dict[str, str]:
    found: dict[str, str] = {}
    queue = [(root, importlib.import_module(root)) for root in ROOTS]
    seen: set[int] = set()
    while queue:
        path, module = queue.pop()
        if id(module) in seen:
            continue
        seen.add(id(module))
        for name in dir(module):
            if name.startswith("_"):
                continue
            value = getattr(module, name, None)
            if isinstance(value, types.ModuleType):
                found.setdefault(name, f"{path}.{name}")
                if name not in policy.MODULE_LEAK_NAMES:  # refused names cut the path
                    queue.append((f"{path}.{name}", value))
    return found


def test_every_reachable_module_name_is_refused_or_exempt():
    found = reachable_module_names()
    unlisted = {name: path for name, path in found.items()
                if name not in policy.MODULE_LEAK_NAMES and name not in policy.MODULE_LEAK_EXEMPT}
    assert not unlisted, f"add to MODULE_LEAK_NAMES or MODULE_LEAK_EXEMPT: {unlisted}"


def test_the_measured_leaks_are_refused():
    for name in ("codecs", "builtins", "sys", "random", "enum", "functools", "os"):
        assert name in policy.MODULE_LEAK_NAMES


def public_names() -> set[str]:
    names: set[str] = set()
    for t in VALUE_TYPES:
        names |= {n for n in dir(t) if not n.startswith("_")}
    for root in ROOTS:
        module = importlib.import_module(root)
        names |= {n for n in dir(module) if not n.startswith("_")
                  and not isinstance(getattr(module, n, None), types.ModuleType)}
    return names


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
