"""The allowed-module policy is one policy, evaluated against the pinned version's modules:
the facts tests/validator/test_module_leak_policy.py checks on the running interpreter hold on
the built 3.13 too, asked of 3.13 itself (every module reachable through public attributes of
the allowed modules is refused or exempt; the refused names and the frame prefixes do not hit
the public API of the values steps handle, apart from the documented collisions)."""

from __future__ import annotations

import json
import subprocess

from stepsmith.runner.validator import policy

ASK = r"""
import datetime, decimal, fractions, importlib, json, re, statistics, sys, types
import urllib.error, urllib.parse
roots, refused = json.loads(sys.argv[1])
found = {}
queue = [(r, importlib.import_module(r)) for r in roots]
seen = set()
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
            if name not in refused:
                queue.append((f"{path}.{name}", value))
values = [str, bytes, int, float, complex, bool, list, dict, set, frozenset, tuple, range,
          slice, datetime.datetime, datetime.date, datetime.time, datetime.timedelta,
          datetime.timezone, decimal.Decimal, decimal.Context, re.Pattern, re.Match,
          statistics.NormalDist, json.JSONDecoder, json.JSONEncoder, json.JSONDecodeError,
          urllib.parse.ParseResult, urllib.parse.SplitResult, urllib.error.HTTPError,
          fractions.Fraction, Exception, types.GeneratorType, types.FunctionType, type(len)]
public = set()
for t in values:
    public |= {n for n in dir(t) if not n.startswith("_")}
for r in roots:
    m = importlib.import_module(r)
    public |= {n for n in dir(m) if not n.startswith("_")
               and not isinstance(getattr(m, n, None), types.ModuleType)}
print(json.dumps({"version": list(sys.version_info[:2]), "found": found,
                  "public": sorted(public)}))
"""


def test_the_policy_holds_on_the_pinned_313(py313):
    roots = sorted(policy.ALLOWED_MODULES | policy.NETWORK_MODULES)
    out = subprocess.run([py313, "-I", "-S", "-c", ASK,
                          json.dumps([roots, sorted(policy.MODULE_LEAK_NAMES)])],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    said = json.loads(out)
    assert said["version"] == [3, 13]
    unlisted = {n: p for n, p in said["found"].items()
                if n not in policy.MODULE_LEAK_NAMES and n not in policy.MODULE_LEAK_EXEMPT}
    assert not unlisted, f"3.13 reaches modules the policy does not name: {unlisted}"
    public = set(said["public"])
    collisions = public & (policy.MODULE_LEAK_NAMES | policy.MRO_NAMES | policy.FORMAT_METHODS
                           | policy.SAMPLING_METHODS)
    assert collisions <= {"string", "mro", "format", "format_map", "samples"}, collisions
    hits = {n for n in public if n.startswith(policy.FRAME_PREFIXES)}
    assert hits <= {"gi_code", "gi_frame", "gi_running", "gi_suspended", "gi_yieldfrom"}, hits
