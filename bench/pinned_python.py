"""The pinned Python's cost, as ratios measured in one run (issue 31): a workflow pinned to
another interpreter (3.13, built by scripts/setup-pythons) against one pinned to the
interpreter stepsmith runs on (3.11).

    python bench/pinned_python.py [--python313 PATH] [--runs N] [--edits N] [--quick]

  (1) a trivial step through run_step, spares kept per interpreter (the language server's
      setting), pinned 3.13 vs 3.11, interleaved, each sample on a refilled pool: <= 1.1x;
      the same without spares (a fresh sandbox each) is shown too;
  (2) keystroke latency (didChange -> publishDiagnostics) in a 1,000-line step file of a
      workflow pinned to 3.13 vs the same file in one pinned to 3.11, one server, the edits
      alternated between the two files: p50 and p95 <= 1.5x;
  (3) `stepsmith test` on 20 workflows / 280 fixtures, half pinned to 3.11 and half to 3.13,
      vs the same tree all pinned to 3.11, runs alternated: wall time <= 1.15x.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsp_client import Client, bytecode_env, manifest_text, pct, print_targets, uri

TRIVIAL = "def f(x):\n    return x + 1\n"


def default_313() -> str:
    cache = os.environ.get("STEPSMITH_PYTHONS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "stepsmith",
        "pythons")
    return os.environ.get("STEPSMITH_TEST_PYTHON313") or os.path.join(cache, "3.13", "bin",
                                                                      "python3.13")


def trivial_steps(py313: str, runs: int) -> dict:
    from stepsmith.runner.pythons import probe
    from stepsmith.runner.sandbox import run_step, spares

    i313 = probe.probe(py313)
    pins = {"3.11": ("3.11", None), "3.13": ("3.13", i313)}
    out: dict = {}
    for mode in ("spares", "fresh"):
        times: dict[str, list[float]] = {k: [] for k in pins}
        pool = spares.enable(1) if mode == "spares" else None
        try:
            for name, (pin, interp) in pins.items():  # warm: bundles, a spare of each
                assert run_step(TRIVIAL, "f", {"x": 1}, python=pin, interpreter=interp
                                ).status == "ok"
            for _ in range(runs):
                for name, (pin, interp) in pins.items():
                    if pool is not None:
                        pool.wait_ready(30)
                        time.sleep(0.06)  # the pool's quiet time: no refill competes
                    t0 = time.perf_counter()
                    res = run_step(TRIVIAL, "f", {"x": 1}, python=pin, interpreter=interp)
                    times[name].append((time.perf_counter() - t0) * 1000)
                    assert res.status == "ok" and res.output == 2, res.message
        finally:
            spares.disable()
        med = {k: statistics.median(v) for k, v in times.items()}
        out[mode] = {**med, "ratio": med["3.13"] / med["3.11"]}
        print(f"trivial step, {mode}: 3.11 median {med['3.11']:.1f} ms, 3.13 median "
              f"{med['3.13']:.1f} ms, ratio {out[mode]['ratio']:.2f}")
    return out


def keystrokes(py313: str, root: Path, edits: int) -> dict:
    from lsp import edits_for, step_file

    text = step_file(1000)
    plan = edits_for(text, edits)
    files = {}
    for pin in ("3.11", "3.13"):
        wf = root / f"w{pin.replace('.', '')}"
        (wf / "steps").mkdir(parents=True)
        (wf / "steps" / "bench.py").write_text(text)
        steps = [f"  - id: s{i}\n    explanation: Summarise block {i}.\n"
                 f"    code: steps/bench.py:{fn}\n    inputs:\n      records: sources.rows\n"
                 f'      threshold: "{i}.00"'
                 for i, fn in enumerate(f"step_{k}" for k in (0, 3, 7, 11, 19))]
        (wf / "workflow.yaml").write_text(manifest_text(f"keys{pin.replace('.', '')}", steps)
                                          .replace('python: "3.11"', f'python: "{pin}"'))
        files[pin] = wf / "steps" / "bench.py"
    env = bytecode_env(root)
    env["STEPSMITH_PYTHONS"] = f"3.13={py313}"
    client = Client([sys.executable, "-m", "stepsmith.server"], root, env)
    lat: dict[str, list[float]] = {pin: [] for pin in files}
    try:
        client.initialize(root)
        time.sleep(1.0)  # discovery, the workflows' first checks, the 3.13 helper's start
        for pin, path in files.items():
            u = uri(path)
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": u, "languageId": "python", "version": 1, "text": text}})
            client.wait_publish(u, 1)
            client.drain(0.3)
        for k, (line, old, new) in enumerate(plan):
            for pin, path in files.items():
                u = uri(path)
                t0 = client.notify("textDocument/didChange", {
                    "textDocument": {"uri": u, "version": k + 2},
                    "contentChanges": [{"range": {"start": {"line": line, "character": 0},
                                                  "end": {"line": line, "character": len(old)}},
                                        "text": new}]})
                lat[pin].append((client.wait_publish(u, k + 2) - t0) * 1000)
    finally:
        client.close()
    row = {pin: {"p50": statistics.median(xs), "p95": pct(xs, 95)} for pin, xs in lat.items()}
    row["ratio_p50"] = row["3.13"]["p50"] / row["3.11"]["p50"]
    row["ratio_p95"] = row["3.13"]["p95"] / row["3.11"]["p95"]
    print(f"keystrokes, 1,000-line step file, {edits} edits: 3.11 p50 {row['3.11']['p50']:.2f} "
          f"ms p95 {row['3.11']['p95']:.2f} ms; 3.13 p50 {row['3.13']['p50']:.2f} ms p95 "
          f"{row['3.13']['p95']:.2f} ms; ratio p50 {row['ratio_p50']:.2f} p95 "
          f"{row['ratio_p95']:.2f}")
    return row


def test_runs(py313: str, root: Path, repeats: int, workflows: int) -> dict:
    from cli import tree

    exe = str(Path(sys.executable).parent / "stepsmith")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "STEPSMITH_DEBUG")}
    env.update(STEPSMITH_PYTHONS=f"3.13={py313}", COLUMNS="100")
    one = root / "one"
    one.mkdir(parents=True)
    flows = tree(one, workflows, 14, exe, env)
    mixed = root / "mixed"
    shutil.copytree(one, mixed)
    for k, d in enumerate(sorted(mixed.iterdir())):
        if k % 2:
            m = d / "workflow.yaml"
            m.write_text(m.read_text().replace('python: "3.11"', 'python: "3.13"'))
    walls: dict[str, list[float]] = {"one": [], "mixed": []}
    for name, cwd in (("one", one), ("mixed", mixed)):  # warm: bundles, probes, page cache
        subprocess.run([exe, "test", "."], cwd=cwd, env=env, capture_output=True, check=False)
    for _ in range(repeats):
        for name, cwd in (("one", one), ("mixed", mixed)):
            t0 = time.perf_counter()
            p = subprocess.run([exe, "test", "."], cwd=cwd, env=env, capture_output=True,
                               text=True, check=False)
            walls[name].append(time.perf_counter() - t0)
            if p.returncode != 0 or f"{len(flows) * 14} passed" not in p.stdout + p.stderr:
                raise SystemExit(f"`stepsmith test` in {cwd} did not pass:\n{p.stdout}{p.stderr}")
    med = {k: statistics.median(v) for k, v in walls.items()}
    ratio = med["mixed"] / med["one"]
    print(f"stepsmith test, {len(flows)} workflows / {len(flows) * 14} fixtures: all on 3.11 "
          f"{med['one']:.2f} s, half on 3.13 {med['mixed']:.2f} s, ratio {ratio:.2f}")
    return {**med, "ratio": ratio}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python313", default=default_313())
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    if not os.access(args.python313, os.X_OK):
        raise SystemExit(f"no Python 3.13 at {args.python313}: run scripts/setup-pythons")
    runs, edits, repeats = ((10, 40, 1) if args.quick else (args.runs, args.edits, args.repeats))
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="stepsmith-bench-pinned-") as tmp:
        steps = trivial_steps(args.python313, runs)
        keys = keystrokes(args.python313, Path(tmp) / "keys", edits)
        tests = test_runs(args.python313, Path(tmp) / "tests", repeats, 20)
    print(f"load average after: {os.getloadavg()}")
    return print_targets([
        ("trivial step, spares per interpreter: 3.13 / 3.11 <= 1.1",
         steps["spares"]["ratio"] <= 1.1),
        ("keystroke p50 and p95: 3.13 / 3.11 <= 1.5",
         keys["ratio_p50"] <= 1.5 and keys["ratio_p95"] <= 1.5),
        ("stepsmith test, half on 3.13 / all on 3.11 <= 1.15", tests["ratio"] <= 1.15),
    ])


if __name__ == "__main__":
    sys.exit(main())
