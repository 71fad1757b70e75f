"""The validator runs in every pinned interpreter's check helper and on `check`'s cold start,
so importing and running it must stay cheap: no `ast` (the validator uses `_ast` and
`compile(..., PyCF_ONLY_AST)`), `dataclasses`/`inspect`, `typing`, `enum`, `re`, `functools`.
Checked in a fresh interpreter, against what that interpreter had loaded before."""

import json
import subprocess
import sys

HEAVY = {"ast", "dataclasses", "inspect", "typing", "enum", "re", "functools", "collections",
         "threading", "contextlib", "copy", "tokenize", "linecache", "dis", "importlib.util"}

SCRIPT = r"""
import json, sys
before = set(sys.modules)
from stepsmith.runner.validator import validate
problems = validate("import os\ndef f(x):\n    return getattr(x, '_y')\n")
clean = validate("import json\ndef f(x):\n    return json.dumps(x)\n")
print(json.dumps({"new": sorted(set(sys.modules) - before),
                  "codes": [p.code for p in problems], "clean": len(clean)}))
"""


def test_importing_and_running_the_validator_loads_no_heavy_module():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         check=True)
    got = json.loads(out.stdout)
    assert got["codes"] == ["SS101", "SS204"] and got["clean"] == 0
    assert not set(got["new"]) & HEAVY, sorted(set(got["new"]) & HEAVY)
