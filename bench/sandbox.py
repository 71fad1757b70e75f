"""Sandbox start-up benchmark (issue 3): python3 ./bench/sandbox.py [--runs N] [--json]

In one run, on this machine:
  (a) bare interpreter: `<real python> -S -c pass` (the resolved binary, not a pyenv shim)
  (b) bwrap + python doing nothing: the very command line the runner uses (namespaces,
      binds, seccomp, libfaketime), with `-c pass` instead of the harness
  (c) a trivial step through run_step (validation in the parent, re-validation + harness
      inside the sandbox, result parsing, redaction)
  (c') the same step through the sandbox without the in-sandbox re-validation (what the
      harness alone costs; informational)
and the ratio (c)/(a) (target <= 2.0); then 100 trivial steps serial vs parallel
(ThreadPoolExecutor, os.cpu_count() workers; target >= 1.8x on 2 cores).
The machine may be shared: the load average before/after is printed with the figures, and
(a)-(c') are sampled interleaved so load changes hit them alike.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from stepsmith.runner.harness import BOOTSTRAP  # noqa: F401  (warms the import)
from stepsmith.runner.sandbox import (
    Limits,
    _execute,
    process,
    run_step,
    sandbox_available,
    seccomp,
)

TRIVIAL = "def step(x):\n    return x + 1\n"


def timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def summary(ms: list[float]) -> dict:
    s = sorted(ms)
    p95 = s[min(len(s) - 1, round(0.95 * (len(s) - 1)))]
    p25 = s[round(0.25 * (len(s) - 1))]  # less sensitive to other load on a shared machine
    return {"median_ms": round(statistics.median(s), 2), "p25_ms": round(p25, 2),
            "p95_ms": round(p95, 2), "n": len(s)}


def bare(exe: str):
    subprocess.run([exe, "-S", "-c", "pass"], stdout=subprocess.DEVNULL, check=True)


def bwrap_nothing():
    sfd = seccomp.memfd_with(seccomp.bpf(False), "bench-seccomp")
    try:
        cmd = process.command(live_network=False, faketime_spec="2026-12-01 07:00:00",
                              seccomp_fd=sfd, args_fd=None, bootstrap="pass")
        # started as the runner starts it: a root runner drops to the sandbox user first
        r = subprocess.run(cmd, env={}, pass_fds=(sfd,), stdout=subprocess.DEVNULL, check=False,
                           start_new_session=True, preexec_fn=process.layout()["preexec"])
        assert r.returncode == 0, r.returncode
    finally:
        os.close(sfd)


def step():
    res = run_step(TRIVIAL, "step", {"x": 1})
    assert res.status == "ok" and res.output == 2, res


def step_no_revalidation():
    res = _execute(TRIVIAL, "step", {"x": 1}, filename="step.py", validate=False,
                   restricted=True, limits=Limits())
    assert res.status == "ok" and res.output == 2, res


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--fixtures", type=int, default=100)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    ok, why = sandbox_available()
    if not ok:
        print(f"sandbox unavailable: {why}", file=sys.stderr)
        return 2
    exe = process.interpreter()
    load_before = os.getloadavg()
    for f in (lambda: bare(exe), bwrap_nothing, step, step_no_revalidation):
        f()  # warm caches (page cache, compiled harness, BPF)
    # Interleaved (a, b, c, c' in turn), so a change in the machine's load hits all alike.
    fns = [lambda: bare(exe), bwrap_nothing, step, step_no_revalidation]
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(args.runs):
        for i, fn in enumerate(fns):
            samples[i] += timed(fn, 1)
    a, b, c, c2 = (summary(s) for s in samples)

    n = args.fixtures
    t = time.perf_counter()
    for _ in range(n):
        step()
    serial = n / (time.perf_counter() - t)
    workers = os.cpu_count() or 1
    t = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda _: step(), range(n)))
    parallel = n / (time.perf_counter() - t)
    load_after = os.getloadavg()

    report = {
        "interpreter": exe,
        "cpus": workers,
        "load_avg_before": [round(x, 2) for x in load_before],
        "load_avg_after": [round(x, 2) for x in load_after],
        "a_bare_python": a,
        "b_bwrap_python_nothing": b,
        "c_trivial_step_run_step": c,
        "c_prime_step_without_in_sandbox_revalidation": c2,
        "ratio_c_over_a": round(c["median_ms"] / a["median_ms"], 2),
        "ratio_c_over_a_p25": round(c["p25_ms"] / a["p25_ms"], 2),
        "ratio_c_prime_over_a": round(c2["median_ms"] / a["median_ms"], 2),
        "fixtures_per_s_serial": round(serial, 1),
        "fixtures_per_s_parallel": round(parallel, 1),
        "parallel_speedup": round(parallel / serial, 2),
        "targets": {"ratio_c_over_a": "<= 2.0", "parallel_speedup": ">= 1.8 on 2 cores"},
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for k, v in report.items():
            print(f"{k:48} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
