"""Rename figures in bench/lsp_workspace.py's 200-workflow / 900-step-file workspace:

    python bench/lsp_rename.py [--workflows 200] [--runs 60]

  * the pure service (runner/language/rename over a WorkspaceSnapshot of every workflow,
    each one checked): p50/p95 of a step-id rename, a step-function rename and a source rename
    used by every step of its workflow;
  * over stdio against the server (when it answers textDocument/rename): the same requests,
    request -> response.
Target (issue 9): rename p95 <= 100 ms. Figures are printed and returned as a dict.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsp_workspace import workspace

TARGET_MS = 100.0


def p95(xs: list[float]) -> float:
    return sorted(xs)[max(0, round(0.95 * len(xs)) - 1)]


def cases(root: Path, w: int) -> list[tuple[str, Path, int, int, str]]:
    """(what, file, 1-based line, column, new name) in workflow `w`."""
    m = root / f"wf{w:03d}" / "workflow.yaml"
    lines = m.read_text().splitlines()
    id_line = next(i for i, ln in enumerate(lines, 1) if ln.startswith("  - id: "))
    src_line = next(i for i, ln in enumerate(lines, 1) if ln.strip().startswith("rows:"))
    step_py = next((root / f"wf{w:03d}" / "steps").glob("*.py"))
    return [("step id", m, id_line, 9, "renamed-step"), ("source", m, src_line, 3, "records_in"),
            ("step function", step_py, 1, 5, "renamed_fn")]


def service(root: Path, runs: int) -> dict[str, list[float]]:
    from stepsmith.runner.language.rename import rename
    from stepsmith.runner.workspace.diagnostics import check_manifest
    from stepsmith.runner.workspace.index import WorkspaceIndex, norm
    from stepsmith.runner.workspace.snapshot import WorkspaceSnapshot

    manifests = sorted(norm(p) for p in root.rglob("workflow.yaml"))
    ix = WorkspaceIndex().with_folders([str(root)]).with_manifests(manifests)
    for m in manifests:
        ix, _ = ix.with_check(m, check_manifest(WorkspaceSnapshot.of(ix, {}), m), None)
    out: dict[str, list[float]] = {}
    for k in range(runs):
        snap = WorkspaceSnapshot.of(ix, {})  # a fresh snapshot per request, as the server does
        for what, path, line, col, new in cases(root, (k * 37) % len(manifests)):
            t = time.perf_counter()
            plan = rename(snap, norm(path), line, col, new)
            out.setdefault(what, []).append((time.perf_counter() - t) * 1000)
            assert plan.edits, what
    return out


def server(root: Path, runs: int) -> dict[str, list[float]]:
    """The same renames over stdio: request sent -> response read (the server answers from a
    snapshot; the edit is not applied, so every request renames the same names)."""
    from lsp_client import Client, ours_cmd, uri

    c = Client(ours_cmd(), root)
    c.initialize(root)
    out: dict[str, list[float]] = {}
    try:
        opened = set()
        for k in range(runs + 1):  # the first round warms up (discovery, lazy imports)
            for what, path, line, col, new in cases(root, (k * 37) % 200):
                if path not in opened:
                    c.notify("textDocument/didOpen", {"textDocument": {
                        "uri": uri(path), "languageId": "python" if path.suffix == ".py" else "yaml",
                        "version": 1, "text": path.read_text()}})
                    opened.add(path)
                t0 = time.perf_counter()
                t1, msg = c.request("textDocument/rename", {
                    "textDocument": {"uri": uri(path)},
                    "position": {"line": line - 1, "character": col}, "newName": new})
                assert msg.get("result"), (what, msg)
                if k:
                    out.setdefault(what, []).append((t1 - t0) * 1000)
    finally:
        c.close()
    return out


def report(title: str, figures: dict[str, list[float]]) -> dict:
    res = {}
    for what, xs in figures.items():
        res[what] = {"p50": statistics.median(xs), "p95": p95(xs), "n": len(xs)}
        print(f"{title}: rename {what}: p50 {res[what]['p50']:.1f} ms, p95 {res[what]['p95']:.1f} ms "
              f"(n={len(xs)})")
    return res


def run(workflows: int = 200, steps: int = 900, runs: int = 60) -> dict:
    with tempfile.TemporaryDirectory(prefix="stepsmith-bench-rename-") as tmp:
        root = Path(tmp) / "ws"
        workspace(root, workflows, steps)
        svc = report(f"service ({workflows} workflows)", service(root, runs))
        lsp = report(f"server over stdio ({workflows} workflows)", server(root, runs))
    worst, worst_lsp = (max(v["p95"] for v in d.values()) for d in (svc, lsp))
    return {"service_ms": svc, "server_ms": lsp,
            "targets": [(f"rename p95 <= {TARGET_MS:.0f} ms (service, {workflows} workflows)",
                         worst <= TARGET_MS),
                        (f"rename p95 <= {TARGET_MS:.0f} ms (server, {workflows} workflows)",
                         worst_lsp <= TARGET_MS)]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workflows", type=int, default=200)
    ap.add_argument("--steps", type=int, default=900)
    ap.add_argument("--runs", type=int, default=60)
    a = ap.parse_args(argv)
    res = run(a.workflows, a.steps, a.runs)
    for name, ok in res["targets"]:
        print(f"  [{'met' if ok else 'MISSED'}] {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
