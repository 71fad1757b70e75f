"""Language-server benchmark: stepsmith's server against `ruff server`, over stdio.

    python bench/lsp.py [--edits 200] [--quick]

One run measures, with the same generated inputs for both servers:
  * didChange -> publishDiagnostics latency (p50/p95) on a 1,000-line step file alone, the
    same file inside a workflow whose manifest names five of its functions (the realistic
    row: it pays the cross-file context), and a 10,000-line file, for the same sequence of 200
    single-function edits (each replaces one line in the body of one function; the next edit
    is sent once the previous version's diagnostics arrived), alternated with ruff's server
    edit by edit (bench/lsp_keystroke.py), and the ratio stepsmith/ruff;
  * the same latency on a 200-step manifest (edits to one step's explanation / inputs);
  * startup-to-initialize (spawn -> initialize response) against a bare pygls server;
  * the resident memory of our server with 100 documents open.

Targets (issue 4): 1,000-line p95 <= ruff's; 10,000-line p95 <= 100 ms; manifest p95 <= 30 ms;
startup <= 1.2x bare pygls; RSS <= 100 MiB. The machine is shared: figures are noisy, so every
comparison is measured in the same run, interleaved where it matters.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsp_client import Client, bytecode_env, ours_cmd, pct, uri
from lsp_keystroke import alternated, describe, rows

BARE_PYGLS = """
from pygls.lsp.server import LanguageServer
server = LanguageServer("bare", "0")
server.start_io()
"""


# ------------------------------------------------------------------ inputs

FUNC = '''def step_{i}(records, threshold):
    """Summarise block {i}: totals, late items and a rounded mean."""
    limit = Decimal(threshold)
    total = Decimal("0")
    late = []
    for row in records:
        amount = Decimal(row["amount"])
        total += amount
        if amount > limit:
            late.append(row["id"])
    days = [int(row.get("days", 0)) for row in records]
    spread = statistics.pstdev(days) if days else 0
    value_{i} = {i}
    return {{"total": str(total), "late": late, "spread": round(spread, 2), "k": value_{i}}}


'''


def step_file(lines: int) -> str:
    head = '"""Generated step file for the LSP benchmark."""\n\nimport statistics\nfrom decimal import Decimal\n\n\n'
    out = [head]
    n = 0
    i = 0
    while n < lines:
        block = FUNC.format(i=i)
        out.append(block)
        n += block.count("\n")
        i += 1
    return "".join(out)


def edits_for(text: str, count: int, seed: int = 7) -> list[tuple[int, str, str]]:
    """(line, old, new): change `value_i = N` inside one random function each time."""
    rng = random.Random(seed)
    lines = text.split("\n")
    targets = [k for k, line in enumerate(lines) if line.startswith("    value_")]
    current = {k: lines[k] for k in targets}
    out = []
    for e in range(count):
        k = rng.choice(targets)
        name = current[k].split("=")[0]
        new = f"{name}= {rng.randrange(10**6)}"
        out.append((k, current[k], new))
        current[k] = new
    return out


def manifest(steps: int) -> str:
    lines = ["workflow: bench", "version: 1", 'python: "3.11"', "trigger:", "  manual: {}",
             "connections:", "  ledger: {description: Ledger}",
             "sources:", "  records: {connection: ledger, description: Records}", "steps:"]
    for i in range(steps):
        lines += [f"  - id: s{i}",
                  f"    explanation: Summarise block {i} of the records for the report.",
                  f"    code: steps/s.py:step_{i % 50}",
                  "    inputs:",
                  "      records: sources.records",
                  f"      threshold: \"{i}.00\""]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ measurements


def latency_run(client: Client, path: Path, text: str, edits, language: str) -> list[float]:
    u = uri(path)
    client.notify("textDocument/didOpen", {"textDocument": {"uri": u, "languageId": language,
                                                           "version": 1, "text": text}})
    client.wait_publish(u, 1)
    client.drain(0.2)
    out = []
    version = 1
    for line, old, new in edits:
        version += 1
        t0 = client.notify("textDocument/didChange", {
            "textDocument": {"uri": u, "version": version},
            "contentChanges": [{"range": {"start": {"line": line, "character": 0},
                                          "end": {"line": line, "character": len(old)}},
                                "text": new}]})
        t1 = client.wait_publish(u, version)
        out.append((t1 - t0) * 1000)
    client.notify("textDocument/didClose", {"textDocument": {"uri": u}})
    client.drain(0.2)
    return out


def startup(cmd: list[str], root: Path, runs: int, env: dict | None = None) -> list[float]:
    out = []
    for _ in range(runs):
        c = Client(cmd, root, env)
        out.append(c.initialize(root) * 1000)
        c.close()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--startup-runs", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="fewer edits and runs (smoke test)")
    args = ap.parse_args(argv)
    if args.quick:
        args.edits, args.startup_runs = 20, 2
    tmp = Path(tempfile.mkdtemp(prefix="stepsmith-bench-"))
    root = tmp / "ws"
    (root / "steps").mkdir(parents=True)
    (root / "ruff.toml").write_text("")  # ruff's defaults, no project config around
    results: dict = {"machine": f"{os.cpu_count()} cores, shared with other jobs: figures are noisy"}
    print(f"stepsmith LSP benchmark ({results['machine']})")

    # keystrokes: alternated with ruff edit by edit; 1,000 lines alone and inside a workflow
    keys = rows(tmp / "keys", 1000, args.edits, step_file, edits_for)
    results["1000_lines"], results["1000_lines_workflow"] = keys["lone"], keys["workflow"]
    big = step_file(10000)
    (root / "bench_10000.py").write_text(big)
    results["10000_lines"] = alternated(root, root / "bench_10000.py", big, edits_for(big, args.edits))
    print(describe(f" 10000-line step file, no workflow, {args.edits} edits", results["10000_lines"]))

    # 200-step manifest
    (root / "steps" / "s.py").write_text(step_file(50 * 16))
    mtext = manifest(200)
    mpath = root / "workflow.yaml"
    mpath.write_text(mtext)
    mlines = mtext.split("\n")
    rng = random.Random(11)
    expl = [k for k, line in enumerate(mlines) if line.startswith("    explanation:")]
    medits = []
    cur = {k: mlines[k] for k in expl}
    for e in range(args.edits):
        k = rng.choice(expl)
        new = f"    explanation: Summarise block {rng.randrange(10**6)} of the records for the report."
        medits.append((k, cur[k], new))
        cur[k] = new
    c = Client(ours_cmd(), root)
    c.initialize(root)
    time.sleep(0.5)
    c.drain(0.3)
    lat = latency_run(c, mpath, mtext, medits, "yaml")
    c.close()
    results["manifest_200_steps"] = {"p50": statistics.median(lat), "p95": pct(lat, 95), "n": len(lat)}
    print(f"200-step manifest, {args.edits} edits: p50 {statistics.median(lat):.2f} ms "
          f"p95 {pct(lat, 95):.2f} ms")

    # startup: interleave ours and bare pygls
    bare = tmp / "bare_pygls.py"
    bare.write_text(BARE_PYGLS)
    env = bytecode_env(tmp)
    startup(ours_cmd(), root, 1, env)  # warm-up: writes the bytecode cache
    startup([sys.executable, str(bare)], root, 1, env)
    ours_s, bare_s = [], []
    for _ in range(args.startup_runs):
        ours_s += startup(ours_cmd(), root, 1, env)
        bare_s += startup([sys.executable, str(bare)], root, 1, env)
    results["startup_ms"] = {"stepsmith": statistics.median(ours_s), "bare_pygls": statistics.median(bare_s),
                             "ratio": statistics.median(ours_s) / statistics.median(bare_s)}
    print(f"startup to initialize (median of {args.startup_runs}, interleaved, bytecode cached): stepsmith "
          f"{results['startup_ms']['stepsmith']:.0f} ms, bare pygls {results['startup_ms']['bare_pygls']:.0f} ms, "
          f"ratio {results['startup_ms']['ratio']:.2f}")

    # RSS with 100 documents open (step files of ~300 lines, plus the manifest workspace)
    docs = root / "many"
    docs.mkdir()
    c = Client(ours_cmd(), root)
    c.initialize(root)
    base = c.rss_mib()
    small = step_file(300)
    for i in range(100):
        p = docs / f"doc_{i}.py"
        p.write_text(small)
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(p), "languageId": "python",
                                                           "version": 1, "text": small}})
    pending = {uri(docs / f"doc_{i}.py") for i in range(100)}
    end = time.time() + 120
    while pending and time.time() < end:
        try:
            t, msg = c.queue.get(timeout=1)
        except queue.Empty:
            continue
        if msg.get("method") == "textDocument/publishDiagnostics":
            pending.discard(msg["params"]["uri"])
    time.sleep(0.5)
    rss = c.rss_mib()
    c.close()
    results["rss_mib_100_docs"] = rss
    results["rss_mib_idle"] = base
    print(f"RSS with 100 documents open: {rss:.1f} MiB (idle after initialize {base:.1f} MiB)")

    targets = [
        ("1,000-line p95 <= ruff p95", results["1000_lines"].get("ratio_p95", 0) <= 1.0),
        ("1,000-line in a workflow p95 <= ruff p95",
         results["1000_lines_workflow"].get("ratio_p95", 0) <= 1.0),
        ("10,000-line p95 <= 100 ms", results["10000_lines"]["stepsmith"]["p95"] <= 100),
        ("200-step manifest p95 <= 30 ms", results["manifest_200_steps"]["p95"] <= 30),
        ("startup <= 1.2x bare pygls", results["startup_ms"]["ratio"] <= 1.2),
        ("RSS <= 100 MiB", rss <= 100),
    ]
    for name, ok in targets:
        print(f"  [{'met' if ok else 'MISSED'}] {name}")
    out = Path(os.environ.get("BENCH_OUT", tmp / "lsp.json"))
    out.write_text(json.dumps(results, indent=2))
    print(f"json: {out}")
    shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
