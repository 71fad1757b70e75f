"""`stepsmith python [PATH...]`: which interpreter each workflow's steps are checked and run on.

Each workflow's `python:` pin is looked up as `check` and `test` look it up: the settings'
`pythons` mapping and $STEPSMITH_PYTHONS, the interpreter stepsmith runs on when it is that
version, `python3.X` on PATH, then uv's and pyenv's interpreters. A pin with no interpreter
here is shown with where stepsmith looked and how to install one.
Exit status: 0 every pin has an interpreter, 1 one has none, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from stepsmith.runner.app.interpreters import workflow_python
from stepsmith.runner.cli.args import add_format
from stepsmith.runner.display import display_path

# workflow data reaches these lines (names, messages): print is the one display filter
from stepsmith.runner.display import safe_print as print
from stepsmith.runner.settings import active
from stepsmith.runner.workspace.discovery import discover


def register(sub) -> None:
    p = sub.add_parser("python", help="show which Python each workflow is checked and run on",
                       description=__doc__.split("\n\n", 1)[1],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="workflow folders or manifests (default: the configured paths, else .)")
    add_format(p)
    p.set_defaults(func=run)


def run(args) -> int:
    paths = args.paths or active().paths
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        for p in missing:
            print(f"stepsmith python: {p}: no such file or folder", file=sys.stderr)
        return 2
    manifests = [f.manifest for f in discover([Path(p) for p in paths])]
    if not manifests:
        print(f"stepsmith python: no workflow manifests under {' '.join(paths)}",
              file=sys.stderr)
        return 2
    found = [workflow_python(m) for m in manifests]
    if args.format == "json":
        json.dump({"workflows": [f.to_json() for f in found]}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for f in found:
            print(f"{display_path(f.manifest)}: {f.summary()}")
    return 0 if all(f.ok or f.pin is None for f in found) else 1
