"""What the allowed modules expose, asked of an interpreter: standard library only, so the same
walk runs in the suite's own interpreter (tests/validator/test_module_leak_policy.py imports
it) and, as a script, in a pinned one (tests/pythons/test_module_policy_pinned.py):

    python module_facts.py '[ROOTS, REFUSED]'   ->  {"version", "found", "public"}
"""

import datetime
import decimal
import fractions
import importlib
import json
import re
import statistics
import sys
import types
import urllib.error
import urllib.parse

VALUE_TYPES = [
    str, bytes, int, float, complex, bool, list, dict, set, frozenset, tuple, range, slice,
    datetime.datetime, datetime.date, datetime.time, datetime.timedelta, datetime.timezone,
    decimal.Decimal, decimal.Context, re.Pattern, re.Match, statistics.NormalDist,
    json.JSONDecoder, json.JSONEncoder, json.JSONDecodeError, urllib.parse.ParseResult,
    urllib.parse.SplitResult, urllib.error.HTTPError, fractions.Fraction, Exception,
    types.GeneratorType, types.FunctionType, type(len),
]


def reachable_module_names(roots, refused) -> dict:
    """Every module reachable as a public attribute from `roots`, the walk stopping at the
    `refused` names: {name: the path it was first reached by}."""
    found: dict = {}
    queue = [(root, importlib.import_module(root)) for root in roots]
    seen: set = set()
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
                if name not in refused:  # refused names cut the path
                    queue.append((f"{path}.{name}", value))
    return found


def public_names(roots) -> set:
    """The public attribute names of the values step code handles and of the modules."""
    names: set = set()
    for t in VALUE_TYPES:
        names |= {n for n in dir(t) if not n.startswith("_")}
    for root in roots:
        module = importlib.import_module(root)
        names |= {n for n in dir(module) if not n.startswith("_")
                  and not isinstance(getattr(module, n, None), types.ModuleType)}
    return names


if __name__ == "__main__":
    roots, refused = json.loads(sys.argv[1])
    print(json.dumps({"version": list(sys.version_info[:2]),
                      "found": reachable_module_names(roots, set(refused)),
                      "public": sorted(public_names(roots))}))
