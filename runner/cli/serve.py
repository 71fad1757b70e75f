"""`stepsmith serve [--tcp HOST:PORT]`: start the language server (stdio by default)."""

from __future__ import annotations

from stepsmith.server.main import main
from stepsmith.server.safepath import drop_start_folder


def register(sub) -> None:
    p = sub.add_parser("serve", help="start the language server (LSP over stdio, or --tcp)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    p.add_argument("--log-level", default=None, help="stderr log level (default WARNING)")
    p.set_defaults(func=run)


def run(args) -> int:
    # the start folder (an editor's workspace) is no place to import the server's modules from
    drop_start_folder()

    argv = []
    if args.tcp:
        argv += ["--tcp", args.tcp]
    if args.log_level:
        argv += ["--log-level", args.log_level]
    return main(argv)
