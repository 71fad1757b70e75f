"""Fixture-strength benchmark: python3 ./bench/mutants.py [--rounds 3] [--edits 3] [--skip-cli]

In one run, on this machine (ratios against a baseline measured in the same run):
  (1) on the bundled examples (a scratch copy, a fresh verdict cache each time), the cost of a
      mutant against the cost of a fixture in `stepsmith test`:
          (wall of `stepsmith mutants --no-cache` / its mutants)
        / (wall of `stepsmith test` / its fixtures)
      target <= 1.5 (both commands whole, as a user runs them: start-up, loading, the
      baseline runs of `mutants` included; medians over `--rounds` alternating pairs);
  (2) in the real server, after an edit to one step (`escalate` of payment-chasing: 3
      fixtures; `Decimal(threshold)` becomes `Decimal(str(threshold))`, one more `str(` each
      edit: a new syntax tree with the same behaviour and no new mutant, so every verdict of
      that step is judged again and no other step's), the time from didSave to `stepsmith/mutantResults`
      against the time the editor takes to run that step's fixtures once
      (`stepsmith.runStepFixtures`): target <= 3.
The machine may be shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from lsp_client import Client, uri  # noqa: E402

CLI = [sys.executable, "-m", "stepsmith.runner.cli"]


def _copy_examples(root: Path) -> Path:
    dest = root / "examples"
    shutil.copytree(REPO / "examples", dest, ignore=shutil.ignore_patterns(".stepsmith"))
    return dest


def _timed(argv: list[str], cwd: Path, env: dict) -> tuple[float, dict]:
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({p.returncode}): {p.stderr[-2000:]}")
    return wall, json.loads(p.stdout)


def cli_ratio(rounds: int) -> dict:
    tests, muts = [], []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _copy_examples(root)
        for i in range(rounds):
            env = dict(os.environ, XDG_CACHE_HOME=str(root / f"cache{i}"))
            wall, doc = _timed([*CLI, "test", "examples", "--format", "json"], root, env)
            fixtures = doc["summary"]["total"]
            tests.append(wall / fixtures)
            wall, doc = _timed([*CLI, "mutants", "examples", "--format", "json", "--no-cache"],
                               root, env)
            summary = doc["summary"]
            muts.append(wall / summary["mutants"])
    per_fixture, per_mutant = statistics.median(tests), statistics.median(muts)
    return {"fixtures": fixtures, "mutants": summary["mutants"],
            "mutant_fixture_runs": summary["fixture_runs"],
            "baseline_runs": summary["baseline_runs"],
            "test_ms_per_fixture": round(per_fixture * 1000, 1),
            "mutants_ms_per_mutant": round(per_mutant * 1000, 1),
            "ratio": round(per_mutant / per_fixture, 2), "target": 1.5}


def _wait(client: Client, method: str, timeout: float = 300) -> tuple[float, dict]:
    end = time.time() + timeout
    while True:
        t, msg = client.queue.get(timeout=max(0.01, end - time.time()))
        if msg.get("method") == method:
            return t, msg["params"]


def editor_ratio(edits: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        examples = _copy_examples(root)
        wf = examples / "payment-chasing"
        env = dict(os.environ, XDG_CACHE_HOME=str(root / "cache"))
        client = Client([sys.executable, "-m", "stepsmith.server"], wf, env=env)
        client.initialize(wf)
        path = wf / "steps/escalate.py"
        u, mu = uri(path), uri(wf / "workflow.yaml")
        text = path.read_text()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": u, "languageId": "python", "version": 1, "text": text}})
        client.wait_publish(u, 1)
        client.request("stepsmith/mutants", {"uri": u}, timeout=600)  # warm; now watched
        runs = []
        for _ in range(edits + 1):
            t0 = time.perf_counter()
            _, reply = client.request("workspace/executeCommand", {
                "command": "stepsmith.runStepFixtures", "arguments": [mu, "escalate"]})
            runs.append(time.perf_counter() - t0)
            assert [r["status"] for r in reply["result"]["results"]] == ["passed"] * 3, reply
        run_once = statistics.median(runs[1:])
        refresh, version = [], 1
        for i in range(edits):
            version += 1
            wrapped = "str(" * (i + 1) + "threshold" + ")" * (i + 1)
            edited = text.replace("limit = Decimal(threshold)", f"limit = Decimal({wrapped})")
            path.write_text(edited)
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": u, "version": version},
                "contentChanges": [{"text": edited}]})
            client.drain(0.3)
            t0 = client.notify("textDocument/didSave", {"textDocument": {"uri": u}})
            t1, params = _wait(client, "stepsmith/mutantResults")
            assert params["summary"]["mutants"] > 0, params
            refresh.append(t1 - t0)
        client.close()
        cli_runs = []  # for comparison: the same fixtures through `stepsmith test` (a process)
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([*CLI, "test", str(wf), "--step", "escalate"], env=env, cwd=root,
                           capture_output=True, check=False)
            cli_runs.append(time.perf_counter() - t0)
    med = statistics.median(refresh)
    return {"step": "escalate", "fixtures": 3, "mutants": params["summary"]["mutants"],
            "run_fixtures_ms": round(run_once * 1000, 1),
            "refresh_ms_median": round(med * 1000, 1),
            "refresh_ms_each": [round(r * 1000, 1) for r in refresh],
            "ratio": round(med / run_once, 2), "target": 3.0,
            "cli_test_step_ms": round(statistics.median(cli_runs) * 1000, 1),
            "ratio_to_cli_test_step": round(med / statistics.median(cli_runs), 2)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--edits", type=int, default=3)
    ap.add_argument("--skip-cli", action="store_true", help="only (2), the editor's refresh")
    args = ap.parse_args()
    out: dict = {"load_average": os.getloadavg(), "cpus": os.cpu_count()}
    if not args.skip_cli:
        out["cli"] = cli_ratio(args.rounds)
    out["editor"] = editor_ratio(args.edits)
    out["load_average_after"] = os.getloadavg()
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
