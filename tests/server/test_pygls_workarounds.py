"""Upstream canaries for the pygls internals server/server.py overrides.

`StepsmithProtocol` corrects three pygls behaviours through its private API
(`structure_message`, `_handle_cancel_notification`, `lsp_shutdown`; `_send_data` is used only
to skip cattrs on the hot path). test_lifecycle.py shows our corrections work end to end. Each
test here runs *plain* pygls on the same messages and asserts the upstream bug is still there:
when pygls fixes one, its canary fails and says which override to delete. The pygls range in
pyproject.toml keeps an upgrade from arriving unannounced.
"""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from lsprotocol import types as T
from pygls.io_ import run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from stepsmith.server.server import StepsmithProtocol


class _Out:
    """The writer pygls sends through: the decoded JSON-RPC messages, in order."""

    def __init__(self) -> None:
        self.raw = bytearray()

    def write(self, data: bytes) -> None:
        self.raw += data

    def close(self) -> None:
        pass

    def messages(self) -> list[dict]:
        out, rest = [], bytes(self.raw)
        while rest:
            head, _, rest = rest.partition(b"\r\n\r\n")
            length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            out.append(json.loads(rest[:length]))
            rest = rest[length:]
        return out


def _frame(message: dict) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class _Session:
    """A pygls server (plain or with our protocol) reading framed messages from the test."""

    def __init__(self, protocol_cls: type[LanguageServerProtocol]) -> None:
        self.server = LanguageServer("canary", "0", protocol_cls=protocol_cls)
        self.server.request_tasks = {}  # what StepsmithProtocol's cancel reads
        self.out = _Out()
        self.server.protocol.set_writer(self.out)
        self.reader = asyncio.StreamReader()
        self.started: list[asyncio.Task] = []
        self.release = asyncio.Event()

        @self.server.feature(T.TEXT_DOCUMENT_HOVER)
        def hover(params: T.HoverParams):
            return None

        @self.server.command("canary.wait")
        async def wait(*_args):
            self.started.append(asyncio.current_task())
            await self.release.wait()

        self.loop_task = asyncio.ensure_future(
            run_async(threading.Event(), self.reader, self.server.protocol))

    def send(self, message: dict) -> None:
        self.reader.feed_data(_frame(message))

    async def settle(self, until=lambda: False) -> None:
        for _ in range(200):  # loop turns, not time: every step here is ready within a few
            if until():
                return
            await asyncio.sleep(0)

    async def close(self) -> list[dict]:
        self.release.set()
        await self.settle()
        self.reader.feed_eof()
        await self.loop_task
        return self.out.messages()


def _invalid_hover(msg_id: int) -> dict:
    return {"id": msg_id, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": "file:///x.py"}, "position": {"line": -1, "character": 0}}}


def _run(coro):
    return asyncio.run(coro)


def test_upstream_still_leaves_an_undecodable_request_unanswered():
    """If this fails, pygls answers undecodable requests itself: delete
    StepsmithProtocol.structure_message and handle_message's _ANSWERED."""
    async def play(protocol_cls):
        s = _Session(protocol_cls)
        s.send(_invalid_hover(1))
        await s.settle()
        return [m for m in await s.close() if m.get("id") == 1]

    assert _run(play(LanguageServerProtocol)) == []
    ours = _run(play(StepsmithProtocol))
    assert [m["error"]["code"] for m in ours] == [-32602]  # InvalidParams, with its id


def test_upstream_still_leaves_a_cancelled_commands_task_running():
    """If this fails, pygls cancels the command's own task on $/cancelRequest: delete
    StepsmithProtocol._handle_cancel_notification and LanguageServer.cancellable's book."""
    async def play(protocol_cls):
        s = _Session(protocol_cls)
        s.send({"id": 1, "method": "workspace/executeCommand",
                "params": {"command": "canary.wait", "arguments": []}})
        await s.settle(lambda: s.started)
        assert len(s.started) == 1
        task = s.started[0]
        s.server.request_tasks[1] = task  # as LanguageServer.cancellable records it
        s.send({"method": "$/cancelRequest", "params": {"id": 1}})
        await s.settle(lambda: task.done())
        cancelled = task.cancelled()
        await s.close()
        return cancelled

    assert _run(play(LanguageServerProtocol)) is False
    assert _run(play(StepsmithProtocol)) is True


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_upstream_shutdown_still_breaks_on_a_pending_request():
    """If this fails, pygls's shutdown no longer iterates the dict its callbacks pop from:
    delete StepsmithProtocol.lsp_shutdown."""
    async def play(protocol_cls):
        s = _Session(protocol_cls)
        s.send({"id": 1, "method": "workspace/executeCommand",
                "params": {"command": "canary.wait", "arguments": []}})
        await s.settle(lambda: s.started)
        s.send({"id": 2, "method": "shutdown"})
        await s.settle(lambda: any(m.get("id") == 2 for m in s.out.messages()))
        return [m for m in await s.close() if m.get("id") == 2]

    upstream = _run(play(LanguageServerProtocol))
    assert len(upstream) == 1 and "dictionary changed size" in upstream[0]["error"]["message"]
    ours = _run(play(StepsmithProtocol))
    assert ours == [{"jsonrpc": "2.0", "id": 2, "result": None}]


def test_send_data_still_takes_plain_json():
    """`send_json` (diagnostics skip cattrs) relies on the private `_send_data` accepting a
    plain dict and framing it: if pygls renames or changes it, this fails before users do."""
    async def play():
        s = _Session(StepsmithProtocol)
        s.server.protocol.send_json("textDocument/publishDiagnostics",
                                    {"uri": "file:///x.py", "version": 3, "diagnostics": []})
        return await s.close()

    assert _run(play()) == [{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
                             "params": {"uri": "file:///x.py", "version": 3, "diagnostics": []}}]
