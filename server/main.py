"""Entry point: guard stdout, parse arguments, start the server over stdio or TCP."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import sys


def _guard_stdout():
    """Keep the real stdout for the protocol only; anything else printed goes to stderr."""
    proto_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    # fd 1 now points at stderr: a stray print (ours, a library's, a child process's) can never
    # corrupt the JSON-RPC stream.
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    return proto_out


def main(argv: list[str] | None = None, configure=None) -> int:
    """`configure(server)`, when given, runs before serving: how the test-suite injects its
    requests and failures (tests/server/hooked_server.py); production passes none."""
    parser = argparse.ArgumentParser(prog="stepsmith serve", description="stepsmith language server")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    parser.add_argument("--log-level", default=os.environ.get("STEPSMITH_LOG", "WARNING"))
    args = parser.parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, str(args.log_level).upper(), logging.WARNING),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from stepsmith.server.server import create_server

    server = create_server()
    if configure is not None:
        configure(server)
    # Analysis allocates many short-lived objects (AST/YAML nodes): keep the start-up objects out
    # of every collection and collect the young generation less often (fewer latency spikes).
    gc.freeze()
    gc.set_threshold(20_000, 20, 50)

    signal.signal(signal.SIGINT, lambda signum, frame: server.end(128 + signum))
    signal.signal(signal.SIGTERM, lambda signum, frame: server.end(128 + signum))
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        out = _guard_stdout()
        server.start_io(sys.stdin.buffer, out)
    # the client closed the stream: normal after `shutdown`, else abnormal (LSP)
    server.end(0 if server.protocol.shutdown_requested else 1)
    return 1  # not reached
