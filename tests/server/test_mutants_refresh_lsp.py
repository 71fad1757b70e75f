"""After a save, the editor's mutants refresh takes the run-on-save of the file's fixtures (same
code, same fixtures, same moment, traced) as its baseline: no fixture runs twice, and the
verdicts are those `stepsmith mutants` gives for the saved text."""

from __future__ import annotations

import asyncio
import os
import uuid
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
)
from lsprotocol import types as T
from mutants_kit import APPROVE_STEP as STEP
from mutants_kit import write_pay

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("sandbox")]

@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("refresh")
    os.environ["XDG_CACHE_HOME"] = str(base / "cache")
    return write_pay(base, spin=False)  # the approve step alone


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient, ws):
    lsp_client.mode = "push"
    await initialize(lsp_client, ws, push_capabilities(),
                     {"stepsmith": {"runOnSave": True, "runOnType": False}})
    lsp_client.versions = {}
    yield
    await lsp_client.shutdown_session()


async def test_a_save_refreshes_on_the_run_on_save_baseline(client, ws):
    path = ws / "steps/approve.py"
    u = open_doc(client, path)
    await diagnostics(client, u)
    first = plain(await client.protocol.send_request_async("stepsmith/mutants", {"uri": u}))
    assert first["summary"]["mutants"] > 0  # now watched: a save refreshes it
    # a new syntax tree with the same behaviour, new in every session (the server's verdict
    # cache outlives it): every verdict is judged again
    name = f"limit_{uuid.uuid4().hex[:8]}"
    edited = STEP.replace("limit = Decimal(limit)\n    approved = amount <= limit",
                          f"{name} = Decimal(str(limit))\n    approved = amount <= {name}")
    assert edited != STEP
    change(client, u, edited)
    path.write_text(edited)
    before = len(client.custom.get("stepsmith/mutantResults", []))
    client.text_document_did_save(T.DidSaveTextDocumentParams(
        text_document=T.TextDocumentIdentifier(uri=u)))
    loop = asyncio.get_running_loop()
    end = loop.time() + 120
    while len(client.custom.get("stepsmith/mutantResults", [])) <= before:
        assert loop.time() < end, "no refresh after the save"
        await asyncio.sleep(0.05)
    summary = plain(client.custom["stepsmith/mutantResults"][-1])["summary"]
    assert summary["baseline_runs"] == 0  # the run-on-save's runs were the baseline
    assert summary["fixture_runs"] > 0  # judged again, not from the cache
    # the same verdicts as a fresh `stepsmith mutants` run of the saved text
    from stepsmith.runner.app.mutants import MutantsRequest, run_mutants

    fresh = run_mutants(MutantsRequest(paths=[str(path)], cache=False))
    assert fresh.baseline_runs == 2
    assert {k: summary[k] for k in ("mutants", "killed", "survived", "timeout", "error")} == \
        {k: fresh.summary()[k] for k in ("mutants", "killed", "survived", "timeout", "error")}
    assert summary["survived"] >= 1  # the boundary mutant of `<=`
