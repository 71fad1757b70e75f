"""`stepsmith guide [--path]`: the user guide (docs/guide.md, installed with the package): a
tutorial from `stepsmith init` to a reviewed change, then the reference."""

from __future__ import annotations

import sys

from stepsmith import guide_path


def register(sub) -> None:
    p = sub.add_parser("guide", help="print the user guide (a tutorial, then the reference)",
                       description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--path", action="store_true", help="print where the guide file is")
    p.set_defaults(func=run)


def run(args) -> int:
    try:
        path = guide_path()
    except FileNotFoundError as exc:
        print(f"stepsmith guide: {exc}", file=sys.stderr)
        return 2
    if args.path:
        print(path)
    else:
        sys.stdout.write(path.read_text(encoding="utf-8"))
    return 0
