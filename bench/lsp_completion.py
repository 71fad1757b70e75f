"""Completion latency in the 200-workflow workspace (issue 9), over stdio like bench/lsp.py:

    python bench/lsp_completion.py [--workflows 200] [--requests 40]

The workspace of bench/lsp_workspace.py (200 workflows, 900 step files). Once every manifest
is checked, one manifest and one step file of a workflow in the middle are open, and each
place below is completed `--requests` times (request -> response, the document unchanged
between requests, as when the client re-asks on every keystroke of a word):
  * `      records: sources.` (an input's value: sources and acyclic step outputs)
  * `    code: steps/` (every function of every file of the workflow folder)
  * a new key in a step (the model's keys)
  * `        x = decimal.` in a step function (the dialect's members of `decimal`)
  * `from statistics import ` (a module's importable names)
Target: p95 <= 20 ms over all of them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsp_client import Client, ours_cmd, pct, uri
from lsp_workspace import workspace


def _cases(manifest: str, step: str) -> list[tuple[str, str, int, int]]:
    """(which, text, 0-based line, character) with the text edited so the cursor sits at the
    end of the completed line."""
    out = []
    lines = manifest.split("\n")
    i = next(k for k, line in enumerate(lines) if line.startswith("      records: sources."))
    edited = lines[:i] + ["      records: sources."] + lines[i + 1:]
    out.append(("manifest", "\n".join(edited), i, len(edited[i])))
    i = next(k for k, line in enumerate(lines) if line.startswith("    code: "))
    edited = lines[:i] + ["    code: steps/"] + lines[i + 1:]
    out.append(("manifest", "\n".join(edited), i, len(edited[i])))
    edited = lines[:i + 1] + ["    "] + lines[i + 1:]
    out.append(("manifest", "\n".join(edited), i + 1, 4))
    slines = step.split("\n")
    body = next(k for k, line in enumerate(slines) if line.startswith("    kept = []"))
    edited = ["import decimal", *slines[:body + 1], "    x = decimal.", *slines[body + 1:]]
    out.append(("step", "\n".join(edited), body + 2, len("    x = decimal.")))
    edited = ["from statistics import ", *slines]
    out.append(("step", "\n".join(edited), 0, len("from statistics import ")))
    return out


def run(workflows: int = 200, steps: int = 900, requests: int = 40) -> dict:
    with tempfile.TemporaryDirectory(prefix="stepsmith-bench-complete-") as tmp:
        root = Path(tmp) / "ws"
        files = workspace(root, workflows, steps)
        step_path = files[len(files) // 2]
        manifest_path = step_path.parent.parent / "workflow.yaml"
        c = Client(ours_cmd(), root)
        c.initialize(root)
        docs = {"manifest": (manifest_path, "yaml"), "step": (step_path, "python")}
        versions = {}
        for name, (path, lang) in docs.items():
            c.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri(path), "languageId": lang, "version": 1, "text": path.read_text()}})
            versions[name] = 1
        time.sleep(3.0)  # let the whole workspace be checked: the figure is steady-state
        c.drain(0.5)
        lat, per_case, counts = [], [], []
        for which, text, line, char in _cases(manifest_path.read_text(), step_path.read_text()):
            path, _ = docs[which]
            versions[which] += 1
            c.notify("textDocument/didChange", {
                "textDocument": {"uri": uri(path), "version": versions[which]},
                "contentChanges": [{"text": text}]})
            c.drain(0.3)
            case = []
            for _ in range(requests):
                t0 = time.perf_counter()
                t1, resp = c.request("textDocument/completion", {
                    "textDocument": {"uri": uri(path)},
                    "position": {"line": line, "character": char}})
                case.append((t1 - t0) * 1000)
            result = resp.get("result") or {}
            items = result.get("items", result) if isinstance(result, dict) else result
            counts.append(len(items or []))
            per_case.append(pct(case, 95))
            lat += case
        c.close()
    res = {"p50": statistics.median(lat), "p95": pct(lat, 95), "n": len(lat),
           "p95_per_case": per_case, "items_per_case": counts}
    print(f"completion in a {workflows}-workflow workspace, {len(lat)} requests: "
          f"p50 {res['p50']:.2f} ms p95 {res['p95']:.2f} ms (per place p95 "
          f"{', '.join(f'{x:.1f}' for x in per_case)} ms; items {counts})")
    res["targets"] = [("completion p95 <= 20 ms (200 workflows)", res["p95"] <= 20)]
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workflows", type=int, default=200)
    ap.add_argument("--steps", type=int, default=900)
    ap.add_argument("--requests", type=int, default=40)
    a = ap.parse_args(argv)
    res = run(a.workflows, a.steps, a.requests)
    for name, ok in res["targets"]:
        print(f"  [{'met' if ok else 'MISSED'}] {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
