"""`stepsmith review [PATH...] [-k EXPR] [--accept | --reject]`: go through the pending
fixture changes that `stepsmith test` wrote (like `cargo insta review`).

Interactively (a terminal): for each change its diff and a single-key prompt
a(ccept) / r(eject) / s(kip) / q(uit). Without a terminal the prompt is refused (exit 2) with a
hint to use --accept / --reject, which decide every selected change at once. Accepting is
atomic per fixture and refused, loudly, when the fixture changed since the pending result was
computed. Ends with "accepted N, rejected M, skipped K". Exit 0, or 1 when anything was refused.
"""

from __future__ import annotations

import argparse
import os
import sys
import termios
import tty

from stepsmith.runner.app import fixture_loop as loop

KEYS = {"a": "accept", "r": "reject", "s": "skip", "q": "quit"}


def register(sub) -> None:
    p = sub.add_parser("review", help="accept or reject pending fixture changes",
                       description="Review the pending fixture changes under PATH "
                       "(.stepsmith/pending/): accept writes the new expectation into the "
                       "fixture, reject drops it.")
    p.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                   help="workflow folders or files inside them (default: .)")
    p.add_argument("-k", dest="keyword", metavar="EXPR",
                   help="only changes whose id (workflow::step::case) matches EXPR "
                   "(pytest -k syntax)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--accept", action="store_true", help="accept every selected change")
    g.add_argument("--reject", action="store_true", help="reject every selected change")
    p.add_argument("--list", action="store_true", help="only list the pending changes")
    p.set_defaults(func=run)


def read_key(stream) -> str:
    """One key press from a terminal, without waiting for Enter."""

    fd = stream.fileno()
    old = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd, termios.TCSANOW)  # TCSAFLUSH would drop a key typed ahead
        ch = os.read(fd, 1)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
    return ch.decode("utf-8", "replace").lower()


def ask(out) -> str:
    while True:
        out.print("[bold]a[/]ccept  [bold]r[/]eject  [bold]s[/]kip  [bold]q[/]uit ? ", end="")
        out.file.flush()  # no newline: a line-buffered terminal would hold the prompt back
        key = read_key(sys.stdin)
        out.print(key if key.isprintable() else "")
        if key in KEYS:
            return KEYS[key]
        if key in ("\x03", "\x04"):  # Ctrl-C / Ctrl-D in cbreak mode
            return "quit"


def run(args: argparse.Namespace) -> int:
    from stepsmith.runner.cli.console import SafeConsole as Console
    from stepsmith.runner.cli.loopview import print_change, print_decision

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    out = Console(highlight=False, soft_wrap=True)
    for p in args.paths:
        if not os.path.exists(p):
            err.print(f"stepsmith review: {p}: no such file or directory", markup=False)
            return 2
    interactive = not (args.accept or args.reject or args.list)
    if interactive and not (sys.stdin.isatty() and sys.stdout.isatty()):
        err.print("stepsmith review: the interactive review needs a terminal; use --accept or "
                  "--reject (with PATH or -k to choose), or --list to see them", markup=False)
        return 2
    items = loop.find(args.paths, args.keyword)
    if not items:
        out.print("no pending fixture changes" + (f" matching -k {args.keyword}"
                                                  if args.keyword else ""))
        return 0
    decisions = []
    for i, item in enumerate(items):
        if args.list:
            print_change(out, item)
            continue
        if args.accept:
            d = loop.accept(item)
        elif args.reject:
            d = loop.reject(item)
        else:
            out.rule(f"{i + 1}/{len(items)}")
            print_change(out, item)
            choice = ask(out)
            if choice == "quit":
                decisions += [loop.skip(x) for x in items[i:]]
                break
            d = {"accept": loop.accept, "reject": loop.reject, "skip": loop.skip}[choice](item)
        print_decision(out if d.outcome != "refused" else err, d)
        decisions.append(d)
    if args.list:
        out.print(f"{len(items)} pending change(s); `stepsmith review` to decide")
        return 0
    out.print(loop.summary(decisions))
    return 1 if any(d.outcome == "refused" for d in decisions) else 0
