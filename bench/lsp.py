"""Language-server benchmark: stepsmith's server against `ruff server`, over stdio.

    python bench/lsp.py [--edits 200] [--quick]

One run measures, with the same generated inputs for both servers:
  * didChange -> publishDiagnostics latency (p50/p95) on a 1,000-line and a 10,000-line step
    file, for the same sequence of 200 single-function edits (each edit replaces one line in
    the body of one function; the next edit is sent once the previous version's diagnostics
    arrived), and the ratio stepsmith/ruff;
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
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BARE_PYGLS = """
from pygls.lsp.server import LanguageServer
server = LanguageServer("bare", "0")
server.start_io()
"""


def uri(path: Path) -> str:
    return path.resolve().as_uri()


class Client:
    """Minimal LSP client: a writer on this thread, a reader thread timestamping messages."""

    def __init__(self, cmd: list[str], cwd: Path, env: dict | None = None):
        self.t_spawn = time.perf_counter()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=cwd, env=env)
        self.queue: queue.Queue = queue.Queue()
        self.responses: dict = {}
        self.resp_event = threading.Condition()
        self.next_id = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        f = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = f.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.decode().partition(":")
                headers[k.strip().lower()] = v.strip()
            body = f.read(int(headers["content-length"]))
            t = time.perf_counter()
            msg = json.loads(body)
            if "id" in msg and "method" in msg:  # server -> client request: answer null
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                continue
            if "id" in msg:
                with self.resp_event:
                    self.responses[msg["id"]] = (t, msg)
                    self.resp_event.notify_all()
            else:
                self.queue.put((t, msg))

    def send(self, msg: dict) -> float:
        body = json.dumps(msg).encode()
        data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        t = time.perf_counter()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        return t

    def request(self, method: str, params, timeout: float = 60) -> tuple[float, dict]:
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        end = time.time() + timeout
        with self.resp_event:
            while rid not in self.responses:
                left = end - time.time()
                if left <= 0:
                    raise TimeoutError(method)
                self.resp_event.wait(left)
            return self.responses.pop(rid)

    def notify(self, method: str, params) -> float:
        return self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def initialize(self, root: Path) -> float:
        caps = {"textDocument": {"publishDiagnostics": {"versionSupport": True},
                                 "synchronization": {"didSave": True}},
                "general": {"positionEncodings": ["utf-16"]}, "window": {"workDoneProgress": False}}
        t, _ = self.request("initialize", {"processId": os.getpid(), "rootUri": uri(root),
                                           "workspaceFolders": [{"uri": uri(root), "name": "b"}],
                                           "capabilities": caps,
                                           "initializationOptions": {"stepsmith": {"runOnSave": False}}})
        self.notify("initialized", {})
        return t - self.t_spawn

    def wait_publish(self, doc_uri: str, version: int | None, timeout: float = 60) -> float:
        end = time.time() + timeout
        while True:
            left = end - time.time()
            if left <= 0:
                raise TimeoutError(f"no diagnostics for {doc_uri} v{version}")
            t, msg = self.queue.get(timeout=left)
            if msg.get("method") != "textDocument/publishDiagnostics":
                continue
            p = msg["params"]
            if p["uri"] != doc_uri:
                continue
            if version is None or p.get("version") in (version, None):
                return t

    def drain(self, quiet: float = 0.3):
        while True:
            try:
                self.queue.get(timeout=quiet)
            except queue.Empty:
                return

    def rss_mib(self) -> float:
        with open(f"/proc/{self.proc.pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def close(self):
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()


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


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[k]


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


def ours_cmd() -> list[str]:
    return [sys.executable, "-m", "stepsmith.server"]


def ruff_cmd() -> list[str] | None:
    exe = shutil.which("ruff")
    if exe is None:
        return None
    try:  # resolve a pyenv shim to the real binary
        real = subprocess.run([sys.executable, "-c", "import ruff.__main__ as m; print(m.find_ruff_bin())"],
                              capture_output=True, text=True, timeout=30).stdout.strip()
        if real:
            exe = real
    except Exception:
        pass
    return [exe, "server"]


def bytecode_env(tmp: Path) -> dict:
    """The server's environment with its bytecode cached, as after `pip install` (this machine
    sets PYTHONDONTWRITEBYTECODE, which would make every start of ours recompile its modules
    while its dependencies' are precompiled). The first start writes the cache."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    return env


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

    ruff = ruff_cmd()
    for size in (1000, 10000):
        text = step_file(size)
        path = root / f"bench_{size}.py"
        path.write_text(text)
        edits = edits_for(text, args.edits)
        row = {}
        for name, cmd in (("stepsmith", ours_cmd()), ("ruff", ruff)):
            if cmd is None:
                continue
            c = Client(cmd, root)
            c.initialize(root)
            time.sleep(0.3)
            c.drain(0.2)
            lat = latency_run(c, path, text, edits, "python")
            c.close()
            row[name] = {"p50": statistics.median(lat), "p95": pct(lat, 95), "n": len(lat)}
        results[f"{size}_lines"] = row
        line = f"{size:>6}-line step file, {args.edits} single-function edits: "
        line += "; ".join(f"{k} p50 {v['p50']:.2f} ms p95 {v['p95']:.2f} ms" for k, v in row.items())
        if "ruff" in row:
            ratio = row["stepsmith"]["p95"] / row["ruff"]["p95"]
            row["ratio_p95"] = ratio
            row["ratio_p50"] = row["stepsmith"]["p50"] / row["ruff"]["p50"]
            line += f"; ratio p50 {row['ratio_p50']:.2f} p95 {ratio:.2f}"
        print(line)

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
