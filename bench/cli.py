"""Benchmark: the command line's speed, as ratios to a bare `python -c pass` of the same
interpreter measured in the same run (issue 20). A CLI lives in pre-commit hooks and shells.

    python3 bench/cli.py [--python PATH] [--repeats N] [--quick]

`--python`: the interpreter whose `stepsmith` is measured (default: this one); its console
script `stepsmith` next to it is what runs. Cases and targets:

- `stepsmith --version`, `stepsmith --help`                          <= 3x bare python
- `stepsmith check examples/`                                         <= 8x
- `stepsmith check` in a tree of 200 workflows after a one-file change <= 10x (as the pre-commit
  hook runs it: whole workflows from the root; a warm run first, then one step file edited)
- `stepsmith test` on 20 workflows / 280 fixtures: start-up (wall time less the time the
  sandboxes ran, which the summary reports beside its total) <= 10% of the wall time. The
  total it reports counts collection, as pytest's does; what it cannot count (the interpreter,
  the imports before the command starts, the exit) is shown as "uncounted".

Each case is timed `--repeats` times interleaved with the bare baseline (a busy machine slows
both alike); medians are reported.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGETS = {"--version": 3.0, "--help": 3.0, "check examples/": 8.0,
           "check, 200 workflows, one file changed": 10.0}


def timed(argv: list[str], cwd: Path, env: dict) -> tuple[float, str]:
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    dt = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        raise SystemExit(f"{argv}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    return dt, p.stdout


def tree(root: Path, n: int, fixtures: int, exe: str, env: dict) -> list[Path]:
    """`n` workflows made by `stepsmith init`, each with `fixtures` fixtures of its step."""
    first = root / "wf000"
    subprocess.run([exe, "init", str(first), "--name", "wf000"], check=True, env=env,
                   capture_output=True)
    example = json.loads((first / "fixtures" / "total" / "example.json").read_text())
    for i in range(1, fixtures):
        doc = json.loads(json.dumps(example))
        doc["inputs"]["invoices"][0]["amount"] = f"{i}.00"
        doc["expected"]["output"]["total"] = f"{i + 2.5:.2f}"
        (first / "fixtures" / "total" / f"case{i:03d}.json").write_text(json.dumps(doc))
    out = [first]
    for k in range(1, n):
        d = root / f"wf{k:03d}"
        shutil.copytree(first, d, ignore=shutil.ignore_patterns(".stepsmith"))
        m = d / "workflow.yaml"
        m.write_text(m.read_text().replace("workflow: wf000", f"workflow: wf{k:03d}"))
        out.append(d)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--quick", action="store_true", help="3 repeats, smaller test tree")
    args = ap.parse_args()
    repeats = 3 if args.quick else args.repeats
    py = args.python
    exe = str(Path(py).parent / "stepsmith")
    # as users run it: an installed package has its bytecode (pip compiles at install), so a
    # PYTHONDONTWRITEBYTECODE of this shell must not make every run recompile stepsmith
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "STEPSMITH_DEBUG", "PYTHONDONTWRITEBYTECODE")}
    env["COLUMNS"] = "100"
    rows = []
    with tempfile.TemporaryDirectory(prefix="stepsmith-bench-cli-") as tmp:
        tmp_path = Path(tmp)
        shutil.copytree(REPO / "examples", tmp_path / "examples",
                        ignore=shutil.ignore_patterns(".stepsmith"))
        big = tmp_path / "big"
        big.mkdir()
        flows = tree(big, 200, 1, exe, env)
        step = flows[137] / "steps" / "total.py"
        cases = {
            "--version": ([exe, "--version"], tmp_path, None),
            "--help": ([exe, "--help"], tmp_path, None),
            "check examples/": ([exe, "check", "examples"], tmp_path, None),
            "check, 200 workflows, one file changed": ([exe, "check"], big, step),
        }
        bare = [py, "-c", "pass"]
        timed([exe, "check"], big, env)  # warm: caches (if any) filled, files in page cache
        for name, (argv, cwd, touch) in cases.items():
            base, mine = [], []
            for i in range(repeats):
                base.append(timed(bare, cwd, env)[0])
                if touch is not None:  # a one-file change before every run
                    touch.write_text(touch.read_text() + f"\n# edit {name} {i}\n")
                mine.append(timed(argv, cwd, env)[0])
            b, m = statistics.median(base), statistics.median(mine)
            rows.append((name, m, b, m / b, TARGETS[name]))
        small = tmp_path / "suite"
        small.mkdir()
        tree(small, 20 if not args.quick else 5, 14, exe, env)
        walls, starts, uncounted = [], [], []
        for _ in range(1 if args.quick else 5):
            wall, out = timed([exe, "test", "."], small, env)
            said = re.search(r"errors in ([\d.]+)s \(sandboxes ([\d.]+)s", out)
            if said is None:
                raise SystemExit(f"no summary line in the output of `stepsmith test`:\n{out}")
            walls.append(wall)
            starts.append(wall - float(said.group(2)))
            uncounted.append(wall - float(said.group(1)))
    print(f"bare `{py} -c pass` as the unit; medians of {repeats}")
    print(f"{'case':44} {'median':>9} {'bare':>8} {'ratio':>7} {'target':>7}")
    for name, m, b, ratio, target in rows:
        flag = "ok" if ratio <= target else "OVER"
        print(f"{name:44} {m * 1000:7.0f}ms {b * 1000:6.0f}ms {ratio:6.1f}x {target:5.0f}x  {flag}")
    wall, start = statistics.median(walls), statistics.median(starts)
    n = 20 if not args.quick else 5
    # the median of each run's share (a median start-up over another run's median wall is
    # the share of no run)
    share = statistics.median(s / w for s, w in zip(starts, walls))
    print(f"{f'test, {n} workflows / {n * 14} fixtures':44} {wall * 1000:7.0f}ms wall, start-up "
          f"{start * 1000:.0f}ms, median share {share:.1%} of wall (target <= 10%)  "
          f"{'ok' if share <= 0.10 else 'OVER'}; uncounted by the summary "
          f"{statistics.median(uncounted) * 1000:.0f}ms; start-up shares "
          f"{', '.join(f'{s / w:.1%}' for s, w in zip(starts, walls))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
