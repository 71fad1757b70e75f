"""`stepsmith mcp [FOLDER]`: the Model Context Protocol server for AI assistants (stdio).

The same checks, reach and sandboxed offline runs a human author gets, as structured tool
results (runner/mcp). Scoped to the roots the client declares, else FOLDER (default: the
current folder); a FOLDER given here bounds the client's roots (only what lies inside both).
An assistant may propose a fixture only as a pending change a person reviews; it never
accepts, never runs live and never sees a credential.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("mcp", help="start the MCP server for AI assistants (stdio)",
                       description=__doc__.split("\n\n", 1)[1],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder", nargs="?", default=None, metavar="FOLDER",
                   help="the workspace when the client declares no roots (default: .); when "
                   "given, it also bounds the roots a client declares")
    p.set_defaults(func=run)


def run(args) -> int:
    folder = args.folder if args.folder is not None else "."
    if not os.path.isdir(folder):
        print(f"stepsmith mcp: {folder}: not a folder", file=sys.stderr)
        return 2
    # stdout is the protocol stream: nothing else may write there (a library's print goes
    # to stderr instead)
    try:
        from stepsmith.runner.mcp.server import build
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("mcp"):
            raise
        print("stepsmith mcp: the MCP SDK is not installed: pip install 'stepsmith[mcp]'",
              file=sys.stderr)
        return 2

    # plain lines on stderr, warnings and worse: a refused tool call is the client's answer,
    # not a log block (the SDK would install a rich handler at INFO)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="stepsmith mcp: %(levelname)s %(name)s: %(message)s")
    build(Path(folder).resolve(), bounded=args.folder is not None).run("stdio")
    return 0
