"""Big manifests (issue 21), over stdio like bench/lsp.py:

    python bench/lsp_manifest.py [--runs 5]

A manifest of N steps, each with an input referring to a step the manifest does not have
(every step gets an SM104): time from didOpen to its first diagnostics, and of a hover sent
right after the didOpen, for N=200 and N=600 (each a fresh server, warmed by a small manifest
first; medians of `runs`).
Target: the N=600 / N=200 ratio <= 3.5 (linear work is 3; the quadratic did-you-mean was 9.9).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsp_client import Client, int_options, manifest_text, ours_cmd, print_targets, uri  # noqa: E402


def missing_refs_manifest(steps: int) -> str:
    return manifest_text("big", [
        f"  - id: step-{s}\n    explanation: Step {s}.\n    code: steps/s.py:f{s}\n"
        f"    inputs:\n      records: sources.rows\n      other: steps.stap-{s}.output"
        for s in range(steps)])


def first_diagnostics(root: Path, steps: int) -> tuple[float, float]:
    """(ms to the first diagnostics, ms to the hover's answer), both from the didOpen."""
    path = root / f"n{steps}.workflow.yaml"
    text = missing_refs_manifest(steps)
    path.write_text(text)
    c = Client(ours_cmd(), root)
    c.initialize(root)
    warm = root / f"warm{steps}.workflow.yaml"  # a warm server: imports done, caches filled
    warm.write_text(missing_refs_manifest(20))
    c.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri(warm), "languageId": "yaml", "version": 1, "text": warm.read_text()}})
    c.wait_publish(uri(warm), 1)
    c.drain(0.5)
    hovered: list[float] = []

    def hover():
        t, _ = c.request("textDocument/hover", {"textDocument": {"uri": uri(path)},
                                                "position": {"line": 8, "character": 6}})
        hovered.append(t)

    t0 = c.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri(path), "languageId": "yaml", "version": 1, "text": text}})
    th = threading.Thread(target=hover)
    th.start()
    t1 = c.wait_publish(uri(path), 1)
    th.join()
    c.close()
    return (t1 - t0) * 1000, (hovered[0] - t0) * 1000


def run(runs: int = 5) -> dict:
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="stepsmith-bench-big-") as tmp:
        first_diagnostics(Path(tmp), 50)  # warm-up: bytecode
        for steps in (200, 600):
            got = [first_diagnostics(Path(tmp), steps) for _ in range(runs)]
            diag = statistics.median(g[0] for g in got)
            hov = statistics.median(g[1] for g in got)
            out[steps] = {"diagnostics_ms": diag, "hover_ms": hov}
            print(f"{steps}-step manifest, every step referring to a missing step: didOpen -> "
                  f"first diagnostics {diag:.0f} ms, hover sent right after the didOpen {hov:.0f} ms")
    ratio = out[600]["diagnostics_ms"] / out[200]["diagnostics_ms"]
    out["ratio"] = ratio
    print(f"ratio N=600 / N=200: {ratio:.2f}")
    out["targets"] = [("N=600 / N=200 first diagnostics <= 3.5", ratio <= 3.5)]
    return out


def main(argv=None) -> int:
    print_targets(run(int_options(argv, runs=5).runs)["targets"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
