"""Throughput benchmark: `stepsmith test` against bare bubblewrap, in one run (issue 30).

    python3 bench/throughput.py [--rounds 5] [--copies 10] [--jobs N]

The tree: the two bundled examples, `--copies` copies each (20 workflows by default), in a
scratch folder with its own cache folder (XDG_CACHE_HOME: the compiled harness, warmed by
one run first). In turn, `--rounds` times:
  (T) `stepsmith test TREE --format json -j J`, a process as a user runs it: its rate is the
      fixtures it executed in a sandbox over the time its sandboxes ran (`run_seconds` of
      the summary, the "fixtures/s" it prints), and, stricter, over the whole command's wall
      time (start-up, loading and checking the workflows, the fixture loop's books);
  (B) the same number of bare sandboxes, J at a time (threads, as `test` runs them), each
      bubblewrap with the runner's own command line (namespaces, binds, seccomp, libfaketime,
      started as the runner starts it: a root runner drops to the sandbox user) running the
      step's interpreter with a step's imports and nothing of stepsmith:
      `python -I -S -c "import json, decimal, datetime"`; its rate is the invocations over
      the time from the first start to the last end.
J is `test`'s default (app/suite.py default_jobs) unless `--jobs` says otherwise.
Reported: the medians of each rate, the ratio T/B per round and its median (target >= 0.9),
and CPU time per fixture / per bare sandbox (user + system of the process and every process
it waited for: on a shared machine wall time includes waiting for a core, CPU time does not).
The load average before and after is printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IMPORTS = "import json, decimal, datetime"


def make_tree(root: Path, copies: int) -> Path:
    tree = root / "tree"
    tree.mkdir()
    for example in sorted((REPO / "examples").iterdir()):
        if not (example / "workflow.yaml").is_file():
            continue
        for i in range(copies):
            shutil.copytree(example, tree / f"{example.name}-{i:02d}",
                            ignore=shutil.ignore_patterns(".stepsmith"))
    return tree


def run_test(tree: Path, jobs: int, env: dict) -> dict:
    """One `stepsmith test` process: wall, CPU (its own and its sandboxes'), the summary."""
    argv = [sys.executable, "-m", "stepsmith.runner.cli", "test", str(tree), "--format", "json",
            "-j", str(jobs)]
    c0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=tree.parent, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - t0
    cpu = _children_cpu() - c0  # the process and the sandboxes it waited for
    if proc.returncode not in (0, 1):
        raise SystemExit(f"stepsmith test failed ({proc.returncode}): "
                         f"{proc.stderr.decode()[-2000:]}")
    doc = json.loads(proc.stdout)
    s = doc["summary"]
    if s["failed"] or s["error"]:
        raise SystemExit(f"stepsmith test did not pass on the tree: {s}")
    return {"wall": wall, "run_seconds": s["run_seconds"], "executed": s["executed"],
            "cpu_s": cpu}


def run_bare(n: int, jobs: int) -> dict:
    """`n` bare sandboxes, `jobs` at a time, in a process of their own (nothing of the test
    process's state is shared): wall from the first start to the last end, and CPU."""
    argv = [sys.executable, __file__, "--bare", str(n), "--jobs", str(jobs)]
    p = subprocess.run(argv, capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise SystemExit(f"bare sandboxes failed: {p.stderr[-2000:]}")
    return json.loads(p.stdout)


def bare_main(n: int, jobs: int) -> int:
    from concurrent.futures import ThreadPoolExecutor

    from stepsmith.runner.sandbox import cmdline, launcher, sandbox_available, seccomp

    ok, why = sandbox_available()
    if not ok:
        print(f"sandbox unavailable: {why}", file=sys.stderr)
        return 2
    lay = cmdline.layout()
    bpf = seccomp.bpf(False)

    def one(_i: int) -> None:
        sfd = seccomp.memfd_with(bpf, "bench-seccomp")
        try:
            cmd = cmdline.command(live_network=False, faketime_spec="1796108400",
                                  seccomp_fd=sfd, args_fd=None, bootstrap=IMPORTS)
            at = cmd.index("--seccomp") + 2  # the interpreter (its path is bound earlier too)
            assert cmd[at] == lay["exe"], cmd[at:]
            cmd = [*cmd[:at + 1], "-I", "-S", "-c", IMPORTS]
            p = launcher.popen(cmd, lay, env={}, pass_fds=(sfd,), stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)
            _, err = p.communicate()
            if p.returncode != 0:
                raise RuntimeError(f"bare sandbox exited {p.returncode}: {err[-500:]!r}")
        finally:
            os.close(sfd)

    one(0)  # warm: page cache, the launcher thread
    c0 = _cpu()
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, range(n)))
    wall = time.perf_counter() - t0
    print(json.dumps({"seconds": wall, "cpu_s": _cpu() - c0}))
    return 0


def _children_cpu() -> float:
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return c.ru_utime + c.ru_stime


def _cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--bare", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.bare is not None:
        return bare_main(args.bare, args.jobs or 1)
    from stepsmith.runner.app.case_run import default_jobs

    jobs = args.jobs or default_jobs()
    load_before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory(prefix="stepsmith-bench-throughput-") as tmp:
        root = Path(tmp)
        tree = make_tree(root, args.copies)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "STEPSMITH_DEBUG")}
        env["XDG_CACHE_HOME"] = str(root / "cache")
        warm = run_test(tree, jobs, env)  # the compiled harness in the cache, files in memory
        n = warm["executed"]
        for _ in range(args.rounds):
            t = run_test(tree, jobs, env)
            b = run_bare(n, jobs)
            rows.append({
                "test_rate": t["executed"] / t["run_seconds"],
                "test_rate_whole": t["executed"] / t["wall"],
                "bare_rate": n / b["seconds"],
                "test_cpu_ms": t["cpu_s"] * 1000 / t["executed"],
                "bare_cpu_ms": b["cpu_s"] * 1000 / n,
            })
    load_after = os.getloadavg()

    def med(key: str) -> float:
        return round(statistics.median(r[key] for r in rows), 2)

    ratios = [r["test_rate"] / r["bare_rate"] for r in rows]
    whole = [r["test_rate_whole"] / r["bare_rate"] for r in rows]
    report = {
        "workflows": 2 * args.copies, "fixtures_executed": n, "jobs": jobs,
        "cpus": os.cpu_count(), "rounds": args.rounds,
        "load_avg_before": [round(x, 2) for x in load_before],
        "load_avg_after": [round(x, 2) for x in load_after],
        "bare": f"bwrap (the runner's command line) + python -I -S -c {IMPORTS!r}",
        "test_fixtures_per_s": med("test_rate"),
        "test_fixtures_per_s_whole_command": med("test_rate_whole"),
        "bare_sandboxes_per_s": med("bare_rate"),
        "ratio_test_over_bare": round(statistics.median(ratios), 3),
        "ratio_each_round": [round(x, 3) for x in ratios],
        "ratio_whole_command_over_bare": round(statistics.median(whole), 3),
        "cpu_ms_per_fixture": med("test_cpu_ms"),
        "cpu_ms_per_bare_sandbox": med("bare_cpu_ms"),
        # the same ratio counted in CPU time (bare's CPU per sandbox / test's per fixture):
        # what the ratio would be on idle cores, less sensitive to the other load
        "cpu_ratio_test_over_bare": round(statistics.median(
            r["bare_cpu_ms"] / r["test_cpu_ms"] for r in rows), 3),
        "target": {"ratio_test_over_bare": ">= 0.9"},
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
