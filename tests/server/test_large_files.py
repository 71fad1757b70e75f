"""Large documents never block the server: documentSymbol, hover and code lens run off the
event loop (a cheap request sent after them is answered first) and their item counts are
capped like yaml-language-server's `maxItemsComputed`."""

from __future__ import annotations

import asyncio

import pytest
from lsp_kit import close_doc, open_doc
from lsprotocol import types as T

pytestmark = pytest.mark.asyncio(loop_scope="module")

MAX_ITEMS = 5000  # server/handlers: symbols computed at most


def _big_step_file(n: int) -> str:
    return "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(n))


async def _answered_first(client, slow, cheap_method="stepsmith/rule"):
    """Send `slow` (a coroutine factory) then a cheap request; the order they finish in."""
    order = []

    async def run(name, coro):
        await coro
        order.append(name)

    t1 = asyncio.ensure_future(run("slow", slow()))
    await asyncio.sleep(0.05)  # the slow request is on its way first
    t2 = asyncio.ensure_future(run("cheap", client.protocol.send_request_async(
        cheap_method, {"code": "SS101"})))
    await asyncio.gather(t1, t2)
    return order


async def test_document_symbol_on_a_huge_file_is_off_the_loop_and_capped(client, workspace):
    path = workspace / "billing" / "steps" / "scratch_huge.py"
    text = _big_step_file(60_000)  # ~1.5 MB, 60,000 functions
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(
        settings={"stepsmith": {"maxFileSize": 10_000_000}}))
    u = open_doc(client, path, text)
    result = {}

    async def symbols():
        result["s"] = await client.text_document_document_symbol_async(T.DocumentSymbolParams(
            text_document=T.TextDocumentIdentifier(uri=u)))

    order = await _answered_first(client, symbols)
    assert order == ["cheap", "slow"]
    assert len(result["s"]) == MAX_ITEMS and result["s"][0].name == "f0"

    async def lens():
        result["l"] = await client.text_document_code_lens_async(T.CodeLensParams(
            text_document=T.TextDocumentIdentifier(uri=u)))

    assert await _answered_first(client, lens) == ["cheap", "slow"]

    async def hover():
        result["h"] = await client.text_document_hover_async(T.HoverParams(
            text_document=T.TextDocumentIdentifier(uri=u), position=T.Position(0, 5)))

    assert await _answered_first(client, hover) == ["cheap", "slow"]
    close_doc(client, u)
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(
        settings={"stepsmith": {"maxFileSize": 2_000_000}}))
