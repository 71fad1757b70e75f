"""The one LSP client of the benchmarks (bench/lsp*.py, bench/live.py): a minimal stdio client
whose reader thread timestamps every message, plus the server commands and percentile helper
they share.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path


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


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[k]


def ours_cmd() -> list[str]:
    return [sys.executable, "-m", "stepsmith.server"]


def ruff_cmd() -> list[str] | None:
    """`ruff server`: the pip `ruff` of this interpreter (the bench/test extra), else PATH's."""
    try:  # the real binary, never a pyenv shim
        real = subprocess.run([sys.executable, "-c", "import ruff.__main__ as m; print(m.find_ruff_bin())"],
                              capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception:
        real = ""
    exe = real or shutil.which("ruff")
    return None if exe is None else [exe, "server"]


def bytecode_env(tmp: Path) -> dict:
    """The server's environment with its bytecode cached, as after `pip install` (this machine
    sets PYTHONDONTWRITEBYTECODE, which would make every start of ours recompile its modules
    while its dependencies' are precompiled). The first start writes the cache."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    return env


def manifest_text(name: str, steps: list[str]) -> str:
    """A manifest (one connection, one source `rows` from it) with the given step entries
    (YAML list items, each starting `  - id: ...`): the benches' one generator."""
    return "\n".join([f"workflow: {name}", "version: 1", 'python: "3.11"', "trigger:\n  manual: {}",
                      "connections:\n  ledger: {description: Ledger}",
                      "sources:\n  rows: {connection: ledger, description: Rows}", "steps:",
                      *steps]) + "\n"


def print_targets(targets: list[tuple[str, bool]]) -> int:
    """Print `[met]` / `[MISSED]` per target; the exit status (0: all met)."""
    for name, ok in targets:
        print(f"  [{'met' if ok else 'MISSED'}] {name}")
    return 0 if all(ok for _, ok in targets) else 1


def int_options(argv, **defaults: int):
    """The benches' command lines: `--name N` for each default."""
    import argparse

    ap = argparse.ArgumentParser()
    for name, value in defaults.items():
        ap.add_argument(f"--{name}", type=int, default=value)
    return ap.parse_args(argv)
