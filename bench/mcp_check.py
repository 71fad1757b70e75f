"""MCP round trip benchmark (issue 23): python3 ./bench/mcp_check.py [--runs N] [--json]

In one run, on the bundled examples, interleaved so load changes hit both alike:
  (a) `stepsmith check examples --format json` as a process (what an agent scraping the CLI
      pays per check, start-up included)
  (b) one `check` tool call on a running `stepsmith mcp` server over stdio, with the SDK's own
      client (what an agent pays per check once its server is up)
  (c) the server's start-up: spawn + initialize + list_tools (paid once per session)
and the ratio (b)/(a). Figures: median, p95, min (ms).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


def summary(xs: list[float]) -> dict:
    xs = sorted(xs)
    return {"median": round(statistics.median(xs), 1), "p95": round(xs[int(0.95 * (len(xs) - 1))], 1),
            "min": round(xs[0], 1), "runs": len(xs)}


def cli_check() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "check", "--format", "json",
                    str(EXAMPLES)], capture_output=True, check=False, cwd=REPO)
    return (time.perf_counter() - t0) * 1000


async def main_async(runs: int) -> dict:
    params = StdioServerParameters(command=sys.executable, cwd=str(REPO),
                                   args=["-m", "stepsmith.runner.cli", "mcp", str(EXAMPLES)])
    startup = []
    for _ in range(3):
        t0 = time.perf_counter()
        async with Client(params) as client:
            await client.list_tools()
            startup.append((time.perf_counter() - t0) * 1000)
    cli, mcp = [], []
    async with Client(params) as client:
        await client.call_tool("check", {})  # warm: first call imports the checks
        for _ in range(runs):
            cli.append(await anyio.to_thread.run_sync(cli_check))
            t0 = time.perf_counter()
            res = await client.call_tool("check", {})
            mcp.append((time.perf_counter() - t0) * 1000)
            assert not res.is_error and res.structured_content is not None
    a, b = summary(cli), summary(mcp)
    return {"load_before": os.getloadavg()[0], "cli_check_ms": a, "mcp_check_ms": b,
            "mcp_startup_ms": summary(startup),
            "ratio_mcp_over_cli_median": round(b["median"] / a["median"], 3)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = anyio.run(main_async, args.runs)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for k, v in out.items():
        print(f"{k:28} {v}")


if __name__ == "__main__":
    main()
