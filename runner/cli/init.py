"""`stepsmith init [PATH] [--name SLUG]`: scaffold a workflow (manifest, one step, one
fixture) that passes `stepsmith check` and `stepsmith test` at once. Refuses (exit 2, nothing
written) when any of the files it would write exists. Also `--show-settings` output."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path

from stepsmith.runner.app.workflow import runtime_python
from stepsmith.runner.display import display_path

# workflow data reaches these lines (names, messages): print is the one display filter
from stepsmith.runner.display import safe_print as print
from stepsmith.runner.model.grammar import is_slug
from stepsmith.runner.safeio import write_atomic
from stepsmith.runner.statedir import ignore_state
from stepsmith.runner.store.identity import runtime_identity

MAX_SLUG = 63  # a slug also names an environment variable and a folder: keep it short



def _slug_ok(name: str) -> bool:
    return is_slug(name) and len(name) <= MAX_SLUG


MANIFEST = """\
# {slug}: a stepsmith workflow. Check it with `stepsmith check`, run its fixtures with
# `stepsmith test`. Every field is described in the JSON Schema (`stepsmith schema`).
workflow: {slug}
version: 1
python: "{python}"
trigger:
  manual: {{}}
steps:
  - id: total
    explanation: Add up the amounts of the invoices, exactly.
    code: steps/total.py:total
    inputs:
      invoices: [{{"id": "INV-1", "amount": "10.00"}}, {{"id": "INV-2", "amount": "2.50"}}]
"""

STEP = '''\
from decimal import Decimal


def total(invoices):
    """Exact sum of the invoice amounts (amounts travel as strings: "10.00")."""
    amount = sum((Decimal(i["amount"]) for i in invoices), Decimal("0"))
    return {"count": len(invoices), "total": str(amount)}
'''

FIXTURE = {
    "inputs": {"invoices": [{"id": "INV-1", "amount": "10.00"},
                            {"id": "INV-2", "amount": "2.50"}]},
    "evaluation_time": "2026-12-01T07:00:00+00:00",
    "expected": {"output": {"count": 2, "total": "12.50"}, "effects": []},
}


def register(sub) -> None:
    p = sub.add_parser("init", help="scaffold a new workflow that passes check and test",
                       description="Write workflow.yaml, steps/total.py and "
                       "fixtures/total/example.json into PATH (created if missing). Nothing "
                       "is overwritten.")
    p.add_argument("path", nargs="?", default=".", metavar="PATH",
                   help="the new workflow's folder (default: .)")
    p.add_argument("--name", metavar="SLUG", help="workflow slug (default: from the folder "
                   "name)")
    p.set_defaults(func=run)


def default_slug(folder: Path) -> str:
    name = re.sub(r"[^a-z0-9_-]+", "-", folder.resolve().name.lower()).strip("-_")
    name = re.sub(r"^[^a-z]+", "", name)[:63]
    return name if _slug_ok(name) else "my-workflow"


def run(args: argparse.Namespace) -> int:
    folder = Path(args.path)
    if folder.exists() and not folder.is_dir():
        print(f"stepsmith init: {args.path} exists and is not a folder", file=sys.stderr)
        return 2
    slug = args.name if args.name is not None else default_slug(folder)
    if not _slug_ok(slug):
        print(f"stepsmith init: --name {slug!r} is not a workflow slug (lowercase letters, "
              "digits, '-' or '_', starting with a letter; at most 63)", file=sys.stderr)
        return 2
    files = {
        folder / "workflow.yaml": MANIFEST.format(slug=slug, python=runtime_python()),
        folder / "steps" / "total.py": STEP,
        folder / "fixtures" / "total" / "example.json": json.dumps(FIXTURE, indent=2) + "\n",
    }
    existing = [p for p in files if p.exists()]
    if folder.is_dir():
        existing += [p for p in folder.glob("*.workflow.yaml")]
    if existing:
        print("stepsmith init: not overwriting " + ", ".join(display_path(p) for p in existing)
              + "; nothing written (choose another PATH)", file=sys.stderr)
        return 2
    written = []
    try:
        for path, text in files.items():
            write_atomic(path, text, overwrite=False)
            written.append(path)

        ignore = ignore_state(folder)  # local state (results, pending changes): never committed
        files[ignore] = ""
        written.append(ignore)
    except FileExistsError as exc:  # appeared meanwhile: take back what this run wrote
        for p in written:
            p.unlink(missing_ok=True)
        print(f"stepsmith init: {exc.filename or exc} appeared meanwhile; nothing written",
              file=sys.stderr)
        return 2
    except OSError as exc:
        for p in written:
            p.unlink(missing_ok=True)
        print(f"stepsmith init: cannot write into {args.path}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    shown = display_path(folder.resolve())
    print(f"created workflow {slug!r} in {shown}:")
    for p in files:
        print(f"  {display_path(p)}")

    quoted = shlex.quote(shown)  # a line to paste into a shell: `My Flow` stays one argument
    print(f"next: stepsmith check {quoted} && stepsmith test {quoted}")
    return 0


def show_settings(settings) -> int:
    """Resolved values and where each came from, one per line (as `ruff --show-settings`)."""
    print(f"settings file: {settings.source or 'none found (defaults)'}")
    for key, value, origin in settings.rows():
        shown = json.dumps(value) if not isinstance(value, str) else value
        print(f"{key} = {shown}  # {origin}")

    ident = runtime_identity()  # what stored results are tied to (hashes the harness)
    print(f"runtime identity = harness {ident.harness_version} "
          f"{ident.harness_source_sha256[:12]}, Python {ident.python_version}  # not a setting")
    return 0
