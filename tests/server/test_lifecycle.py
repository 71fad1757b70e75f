"""Server lifecycle over a raw stdio pipe (the exit status and signals are the real ones):
`exit` without `shutdown` exits 1, SIGINT exits, undecodable params are answered InvalidParams,
`shutdown` while a run is pending answers cleanly, `diagnosticProvider` only for clients that
pull, and a crashed request is a JSON-RPC error (never a silent empty answer)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest
from lsp_kit import HOOKED, SERVER, uri


class Raw:
    """A real server process; stdin stays open until `close` (as an editor keeps it)."""

    def __init__(self, cwd: Path, hooks: bool = True):
        self.proc = subprocess.Popen(HOOKED if hooks else SERVER, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, cwd=cwd,
                                     stderr=open(os.environ.get("RAW_STDERR", os.devnull), "w"))
        self.buf = b""
        self.seen: list[dict] = []

    def send(self, msg: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _read_one(self, deadline: float) -> dict | None:
        fd = self.proc.stdout.fileno()
        while True:
            if b"\r\n\r\n" in self.buf:
                head, rest = self.buf.split(b"\r\n\r\n", 1)
                n = int(head.split(b"Content-Length:")[1].split(b"\r\n")[0])
                if len(rest) >= n:
                    self.buf = rest[n:]
                    return json.loads(rest[:n])
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([fd], [], [], left)
            if not r:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self.buf += chunk

    def response(self, msg_id, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read_one(deadline)
            if msg is None:
                raise AssertionError(f"no response to {msg_id} (seen: {self.seen[-5:]})")
            self.seen.append(msg)
            if msg.get("id") == msg_id and "method" not in msg:
                return msg

    def initialize(self, root: Path | None, caps: dict | None = None, options=None) -> dict:
        self.send({"id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": uri(root) if root else None,
            "capabilities": caps or {}, "initializationOptions": options}})
        res = self.response(1)
        self.send({"method": "initialized", "params": {}})
        return res

    def wait(self, timeout: float = 20.0) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def raw(tmp_path):
    servers: list[Raw] = []

    def start(**kw) -> Raw:
        s = Raw(tmp_path, **kw)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


def test_exit_without_shutdown_exits_1(raw):
    s = raw()
    s.initialize(None)
    s.send({"method": "exit"})
    assert s.wait() == 1


def test_shutdown_then_exit_exits_0_with_stdin_still_open(raw):
    s = raw()
    s.initialize(None)
    s.send({"id": 2, "method": "shutdown"})
    assert s.response(2).get("error") is None
    s.send({"method": "exit"})
    assert s.wait() == 0


def test_sigint_exits(raw):
    s = raw()
    s.initialize(None)
    s.proc.send_signal(signal.SIGINT)
    assert s.wait() is not None, "SIGINT stopped serving but the process never exited"


def test_undecodable_params_answered_invalid_params(raw, tmp_path):
    s = raw()
    s.initialize(tmp_path)
    f = tmp_path / "x.py"
    f.write_text("def f(x):\n    return x\n")
    s.send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri(f), "languageId": "python", "version": 1, "text": f.read_text()}}})
    s.send({"id": 7, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": uri(f)}, "position": {"line": -1, "character": 0}}})
    res = s.response(7)
    assert res["error"]["code"] == -32602, res
    # and the server still serves
    s.send({"id": 8, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": uri(f)}, "position": {"line": 0, "character": 4}}})
    assert "error" not in s.response(8)


def test_diagnostic_provider_only_for_pulling_clients(raw):
    push = raw().initialize(None, {"textDocument": {"publishDiagnostics": {}}})
    assert "diagnosticProvider" not in push["result"]["capabilities"]
    pull = raw().initialize(None, {"textDocument": {"diagnostic": {}}})
    assert pull["result"]["capabilities"]["diagnosticProvider"]["identifier"] == "stepsmith"


def test_crashed_request_is_a_jsonrpc_error(raw):
    s = raw()
    s.initialize(None)
    s.send({"id": 5, "method": "stepsmith/_raise", "params": {}})
    res = s.response(5)
    assert res.get("error", {}).get("code") == -32603, res
    assert "deliberate failure" in res["error"]["message"]
    s.send({"id": 6, "method": "stepsmith/status", "params": {}})
    assert "result" in s.response(6)


SPIN = "def spin(x):\n    while True:\n        x = x + 1\n"
SPIN_MANIFEST = """workflow: spin
version: 1
python: "3.11"
trigger:
  schedule: {cron: "0 7 * * 1-5", timezone: Europe/London}
steps:
  - id: spin
    explanation: loops until the sandbox's limit
    code: steps/spin.py:spin
    inputs:
      x: 1
"""


def _spin_workflow(root: Path) -> Path:
    wf = root / "spin"
    (wf / "steps").mkdir(parents=True)
    (wf / "fixtures" / "spin").mkdir(parents=True)
    (wf / "workflow.yaml").write_text(SPIN_MANIFEST)
    (wf / "steps" / "spin.py").write_text(SPIN)
    for i in range(5):  # more than the run pool's workers: some wait for a free one
        (wf / "fixtures" / "spin" / f"case-{i}.json").write_text(json.dumps(
            {"inputs": {"x": i}, "expected": {"output": 0}}))
    return wf


def _sandbox_pids(server_pid: int) -> set[int]:
    """Processes below the server (its sandboxes: bwrap and what runs inside)."""
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(d))
    out, todo = set(), [server_pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.add(c)
            todo.append(c)
    return out


def _wait_for(pred, timeout=30.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_shutdown_while_a_run_is_pending(raw, tmp_path):
    wf = _spin_workflow(tmp_path)
    s = raw()
    s.initialize(tmp_path)
    s.send({"id": 3, "method": "workspace/executeCommand", "params": {
        "command": "stepsmith.runStepFixtures", "arguments": [uri(wf / "workflow.yaml"), "spin"]}})
    assert _wait_for(lambda: len(_sandbox_pids(s.proc.pid)) >= 2), "the run never started a sandbox"
    s.send({"id": 4, "method": "shutdown"})
    res = s.response(4)
    assert res.get("error") is None and res.get("result") is None, res
    s.send({"method": "exit"})
    assert s.wait() == 0


def test_cancel_request_stops_the_run_and_its_sandboxes(raw, tmp_path):
    wf = _spin_workflow(tmp_path)
    s = raw()
    s.initialize(tmp_path)
    s.send({"id": 3, "method": "workspace/executeCommand", "params": {
        "command": "stepsmith.runStepFixtures", "arguments": [uri(wf / "workflow.yaml"), "spin"]}})
    assert _wait_for(lambda: len(_sandbox_pids(s.proc.pid)) >= 2), "the run never started a sandbox"
    s.send({"method": "$/cancelRequest", "params": {"id": 3}})
    res = s.response(3, timeout=10)
    assert res["error"]["code"] == -32800, res  # RequestCancelled
    # the sandboxes are killed, and the fixtures still queued never start one
    assert _wait_for(lambda: not _sandbox_pids(s.proc.pid), timeout=10), _sandbox_pids(s.proc.pid)
    end = time.monotonic() + 4.0
    while time.monotonic() < end:
        assert not _sandbox_pids(s.proc.pid), "a cancelled run started another sandbox"
        time.sleep(0.05)
