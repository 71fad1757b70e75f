"""Workspace-scale language-server figures (issue 8), over stdio like bench/lsp.py:

    python bench/lsp_workspace.py [--workflows 200] [--cycles 1000]

  * a generated workspace of 200 workflows / 900 step files (unique code): time from
    `didOpen` of one step file, right after `initialized`, to its first diagnostics (target
    <= 150 ms: the server checks the opened document's own workflow first, the rest after);
  * RSS after 1,000 open/hover/close/delete cycles of a 900-step manifest against RSS after
    the first 100 (target: within 10%; bench/lsp_memory.py's one-path pattern).
Figures are printed and returned as a dict (bench/lsp.py merges them into its JSON).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsp_client import Client, bytecode_env, ours_cmd, uri

STEP = '''def {name}(records, threshold):
    kept = []
    for r in records:
        if r.get("amount_{k}", 0) > threshold + {k}:
            kept.append({{"id": r["id"], "n": {k}}})
    return kept
'''


def workspace(root: Path, workflows: int, steps_total: int) -> list[Path]:
    """`workflows` folders, `steps_total` step files spread over them; returns the step files."""
    files = []
    per = [steps_total // workflows + (1 if i < steps_total % workflows else 0) for i in range(workflows)]
    k = 0
    for w in range(workflows):
        d = root / f"wf{w:03d}"
        (d / "steps").mkdir(parents=True)
        lines = [f"workflow: wf{w:03d}", "version: 1", 'python: "3.11"',
                 'trigger:\n  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}',
                 "sources:\n  rows: {description: Rows}", "steps:"]
        for s in range(per[w]):
            name = f"s{w}_{s}"
            (d / "steps" / f"{name}.py").write_text(STEP.format(name=name, k=k))
            files.append(d / "steps" / f"{name}.py")
            k += 1
            lines.append(f"  - id: {name.replace('_', '-')}\n    explanation: Step {name}.\n"
                         f"    code: steps/{name}.py:{name}\n    inputs:\n      records: sources.rows\n"
                         f"      threshold: 3")
        (d / "workflow.yaml").write_text("\n".join(lines) + "\n")
    return files


def first_diagnostics(root: Path, target: Path, runs: int, delay: float = 0.0,
                      env: dict | None = None) -> list[float]:
    """`delay`: seconds between `initialized` and the didOpen (0: the cold first request, which
    also pays the server's lazy imports; 0.5: while the other manifests are being checked)."""
    out = []
    for _ in range(runs):
        c = Client(ours_cmd(), root, env)
        c.initialize(root)
        time.sleep(delay)
        text = target.read_text()
        t0 = c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri(target), "languageId": "python", "version": 1, "text": text}})
        t1 = c.wait_publish(uri(target), 1)
        out.append((t1 - t0) * 1000)
        c.close()
    return out


def rss_cycles(root: Path, cycles: int) -> tuple[float, float]:
    """Open/hover/close(/delete) of a 900-step manifest on one path: bench/lsp_memory.py's
    "one path" pattern (which also measures distinct paths)."""
    from lsp_memory import cycles as memory_cycles

    return memory_cycles(root / "big", cycles, 900, distinct=False)


def run(workflows: int = 200, steps: int = 900, cycles: int = 1000, runs: int = 3) -> dict:
    with tempfile.TemporaryDirectory(prefix="stepsmith-bench-ws-") as tmp:
        root = Path(tmp)
        files = workspace(root / "ws", workflows, steps)
        target = files[len(files) // 2]
        env = bytecode_env(root)
        first_diagnostics(root / "ws", target, 1, env=env)  # writes the bytecode cache
        lat = first_diagnostics(root / "ws", target, runs, env=env)
        med = statistics.median(lat)
        print(f"{workflows} workflows / {steps} step files: didOpen -> first diagnostics "
              f"median {med:.0f} ms (runs: {', '.join(f'{x:.0f}' for x in lat)}), cold server "
              "(bytecode cached)")
        warm = first_diagnostics(root / "ws", target, runs, delay=0.5, env=env)
        wmed = statistics.median(warm)
        print(f"  ... opened 0.5 s after initialized (other manifests still being checked): "
              f"median {wmed:.0f} ms (runs: {', '.join(f'{x:.0f}' for x in warm)})")
        t = time.perf_counter()
        r100, r_end = rss_cycles(root, cycles)
        growth = (r_end - r100) / r100
        print(f"RSS after 100 open/hover/close/delete cycles of a 900-step "
              f"manifest: {r100:.1f} MiB; after {cycles}: {r_end:.1f} MiB ({growth:+.1%}; "
              f"{time.perf_counter() - t:.0f} s)")
    return {"first_diagnostics_ms": {"median": med, "runs": lat, "median_after_0_5s": wmed},
            "rss_cycles_mib": {"after_100": r100, f"after_{cycles}": r_end, "growth": growth},
            "targets": [("didOpen -> first diagnostics <= 150 ms (200 workflows, cold)", med <= 150),
                        ("didOpen -> first diagnostics <= 150 ms (while checking the rest)", wmed <= 150),
                        (f"RSS after {cycles} cycles within 10% of after 100", growth <= 0.10)]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workflows", type=int, default=200)
    ap.add_argument("--steps", type=int, default=900)
    ap.add_argument("--cycles", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args(argv)
    res = run(a.workflows, a.steps, a.cycles, a.runs)
    for name, ok in res["targets"]:
        print(f"  [{'met' if ok else 'MISSED'}] {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
