"""`stepsmith schema`: print the JSON Schema of workflow.yaml (generated from the model).

`--check FILE` exits 1 when FILE differs from the generated schema (drift);
`--write FILE` regenerates FILE.
"""

from __future__ import annotations

import sys
from pathlib import Path

from stepsmith.runner.schema import schema_text


def register(sub) -> None:
    p = sub.add_parser("schema", help="print the JSON Schema of workflow.yaml",
                       description=__doc__.split("\n\n", 1)[1])
    g = p.add_mutually_exclusive_group()
    g.add_argument("--check", metavar="FILE", help="exit 1 if FILE differs from the generated schema")
    g.add_argument("--write", metavar="FILE", help="write the generated schema to FILE")
    p.set_defaults(func=run)


def run(args) -> int:
    text = schema_text()
    if args.check:
        try:
            current = Path(args.check).read_text(encoding="utf-8")
        except OSError as exc:
            print(f"stepsmith schema: cannot read {args.check}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        if current != text:
            print(f"{args.check} is out of date; regenerate it with "
                  f"`stepsmith schema --write {args.check}`", file=sys.stderr)
            return 1
        print(f"{args.check} is up to date.")
        return 0
    if args.write:
        Path(args.write).parent.mkdir(parents=True, exist_ok=True)
        Path(args.write).write_text(text, encoding="utf-8")
        return 0
    sys.stdout.write(text)
    return 0
