"""`stepsmith/mutants` through a real LSP client (pytest-lsp): the records the CLI prints,
survivors as Information diagnostics at the changed range and a lens per step, cleared when a
recorded fixture kills them; hidden while the text differs; cancellation ends the sandboxes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsp_kit import (
    CONFIG,
    change,
    diagnostics,
    initialize,
    open_doc,
    plain,
    push_capabilities,
    uri,
)
from lsprotocol import types as T
from mutants_kit import MESSAGE, STEP, fixture, write_pay
from sandbox_kit import alive

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("sandbox")]



@pytest.fixture(scope="module")
def pay_ws(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("mutants")
    os.environ["XDG_CACHE_HOME"] = str(base / "cache")  # the server's verdict cache: ours
    return write_pay(base)


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient, pay_ws):
    lsp_client.mode = "push"
    await initialize(lsp_client, pay_ws, push_capabilities(),
                     {"stepsmith": {"runOnSave": False, "runOnType": False}})
    lsp_client.versions = {}
    yield
    await lsp_client.shutdown_session()


async def mutants(client, u: str) -> dict:
    return plain(await client.protocol.send_request_async("stepsmith/mutants", {"uri": u}))


def survivors_shown(diags) -> list:
    return [d for d in diags if d.source == "stepsmith-mutants"]


async def lens_titles(client, u):
    lenses = await client.text_document_code_lens_async(T.CodeLensParams(
        text_document=T.TextDocumentIdentifier(uri=u)))
    return [lens.command.title for lens in lenses or []]


async def survivor_shown(client, pay_ws) -> str:
    """The step file open (once per client) with its surviving mutant shown: each test starts
    from there, whichever tests ran before it in this process (xdist splits modules)."""
    path = pay_ws / "steps/approve.py"
    u = uri(path)
    if u not in client.versions:
        open_doc(client, path)
        await diagnostics(client, u)
        await mutants(client, u)
    await diagnostics(client, u, predicate=lambda ds: bool(survivors_shown(ds)))
    return u


async def test_records_equal_the_cli_and_survivors_show_where_they_are(client, pay_ws):
    u = open_doc(client, pay_ws / "steps/approve.py")
    await diagnostics(client, u)
    doc = await mutants(client, u)
    cli = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "mutants", "--format",
                          "json", str(pay_ws / "steps/approve.py")], capture_output=True,
                         text=True, timeout=300, check=False)
    theirs = json.loads(cli.stdout)
    keys = ("line", "column", "end_line", "end_column", "operator", "original", "replacement",
            "status", "killed_by", "steps")
    assert [{k: m[k] for k in keys} for m in doc["mutants"]] == \
        [{k: m[k] for k in keys} for m in theirs["mutants"]]
    first = doc["mutants"][0]
    assert (first["status"], first["original"], first["replacement"]) == ("survived", "<=", "<")
    assert first["range"] == {"start": {"line": 7, "character": 22},
                              "end": {"line": 7, "character": 24}}
    diags = await diagnostics(client, u, predicate=lambda ds: bool(survivors_shown(ds)))
    (d,) = survivors_shown(diags)
    assert d.severity == T.DiagnosticSeverity.Information and d.message == MESSAGE
    assert (d.range.start.line, d.range.start.character, d.range.end.character) == (7, 22, 24)
    assert "1 mutant survives" in await lens_titles(client, u)


async def test_typing_hides_them_until_the_next_run(client, pay_ws):
    u = await survivor_shown(client, pay_ws)
    change(client, u, STEP.replace("limit = Decimal(limit)", "limit = Decimal(limit) "))
    assert survivors_shown(await diagnostics(client, u)) == []
    assert "1 mutant survives" not in await lens_titles(client, u)
    change(client, u, STEP)  # back to the text they ran on
    await diagnostics(client, u, predicate=lambda ds: bool(survivors_shown(ds)))


async def test_a_recorded_boundary_fixture_clears_the_survivor(client, pay_ws):
    u = await survivor_shown(client, pay_ws)
    before = len(client.custom.get("stepsmith/mutantResults", []))
    edge = pay_ws / "fixtures/approve/at-limit.json"
    edge.write_text(fixture("100", True))
    client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(changes=[
        T.FileEvent(uri=uri(edge), type=T.FileChangeType.Created)]))
    loop = asyncio.get_running_loop()
    end = loop.time() + 120
    while len(client.custom.get("stepsmith/mutantResults", [])) <= before:
        assert loop.time() < end, "no refresh after the fixture was recorded"
        await asyncio.sleep(0.05)
    summary = plain(client.custom["stepsmith/mutantResults"][-1])["summary"]
    doc = await mutants(client, u)
    assert summary["survived"] == 0, doc["notes"]
    await diagnostics(client, u, predicate=lambda ds: not survivors_shown(ds))
    titles = await lens_titles(client, u)
    assert "✓ every mutant noticed" in titles and "1 mutant survives" not in titles


async def test_cancelling_ends_the_run_and_its_sandboxes(client, pay_ws):
    u = uri(pay_ws / "steps/approve.py")
    if u not in client.versions:  # the first test of this module in this process
        open_doc(client, pay_ws / "steps/approve.py")
    # a new text of `spin`, so nothing is cached: its looping mutant runs to its limits
    change(client, u, STEP.replace("left = n\n", "left = n + 0\n"))
    fut = client.protocol.send_request("stepsmith/mutants", {"uri": u}, msg_id="mutants-1")
    running: list = []
    loop = asyncio.get_running_loop()
    end = loop.time() + 60
    while not running:
        running = plain(await client.protocol.send_request_async(
            "stepsmith/_sandboxes", {}))["running"]
        assert loop.time() < end, "no sandbox started"
        await asyncio.sleep(0.02)
    client.protocol.notify("$/cancelRequest", T.CancelParams(id="mutants-1"))
    end = loop.time() + 10
    while plain(await client.protocol.send_request_async("stepsmith/_sandboxes",
                                                         {}))["running"]:
        assert loop.time() < end, "the cancelled run's sandboxes are still running"
        await asyncio.sleep(0.05)
    end = loop.time() + 10
    while not fut.done():  # answered (an error: the request was cancelled), not left hanging
        assert loop.time() < end
        await asyncio.sleep(0.05)
    assert fut.exception() is not None
    end = loop.time() + 10
    while True:  # killed and reaped, not left to their limits
        # a fork server the run had given back before the cancel (between its rounds) is
        # the editor's now, idle, kept for the next run: it serves nothing
        kept = plain(await client.protocol.send_request_async("stepsmith/_sandboxes",
                                                              {}))["kept"]
        left = [p for p in running if alive(p) and p not in kept]
        if not left:
            break
        assert loop.time() < end, (running, kept)
        await asyncio.sleep(0.05)
    assert len(kept) <= 2
