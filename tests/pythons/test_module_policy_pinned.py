"""The allowed-module policy is one policy, evaluated against the pinned version's modules:
the facts tests/validator/test_module_leak_policy.py checks on the running interpreter hold on
the built 3.13 too, asked of 3.13 itself (the same walk:
tests/validator/module_facts.py) (every module reachable through public attributes of
the allowed modules is refused or exempt; the refused names and the frame prefixes do not hit
the public API of the values steps handle, apart from the documented collisions)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from stepsmith.runner.validator import policy

FACTS = Path(__file__).resolve().parents[1] / "validator" / "module_facts.py"


def test_the_policy_holds_on_the_pinned_313(py313):
    roots = sorted(policy.ALLOWED_MODULES | policy.NETWORK_MODULES)
    out = subprocess.run([py313, "-I", "-S", str(FACTS),
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
