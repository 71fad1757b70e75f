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
    uri,
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
    summary = await _saved(client, u, path, edited)
    assert summary["baseline_runs"] == 0  # the run-on-save's runs were the baseline
    assert summary["fixture_runs"] > 0  # judged again, not from the cache
    # the same verdicts as a fresh `stepsmith mutants` run of the saved text
    from stepsmith.runner.app.mutants import MutantsRequest, run_mutants

    fresh = run_mutants(MutantsRequest(paths=[str(path)], cache=False))
    assert fresh.baseline_runs == 2
    assert {k: summary[k] for k in ("mutants", "killed", "survived", "timeout", "error")} == \
        {k: fresh.summary()[k] for k in ("mutants", "killed", "survived", "timeout", "error")}
    assert summary["survived"] >= 1  # the boundary mutant of `<=`


async def _saved(client, u: str, path: Path, text: str) -> dict:
    """`text` typed and saved: the summary of the refresh it brings."""
    change(client, u, text)
    path.write_text(text)
    before = len(client.custom.get("stepsmith/mutantResults", []))
    client.text_document_did_save(T.DidSaveTextDocumentParams(
        text_document=T.TextDocumentIdentifier(uri=u)))
    loop = asyncio.get_running_loop()
    end = loop.time() + 120
    while len(client.custom.get("stepsmith/mutantResults", [])) <= before:
        assert loop.time() < end, "no refresh after the save"
        await asyncio.sleep(0.05)
    return plain(client.custom["stepsmith/mutantResults"][-1])["summary"]


async def test_a_refresh_after_a_behaviour_change_judges_on_the_new_results(client, ws):
    """The refresh judges first on its last run's baseline (both fixtures passing); the edit
    makes `large` fail on the unmutated code without moving a line, so those verdicts must
    not stand: the records are those of a fresh run, `large` left out."""
    from stepsmith.runner.app.mutants import MutantsRequest, run_mutants

    path = ws / "steps/approve.py"
    u = uri(path)
    if u not in client.versions:
        open_doc(client, path)
    name = f"limit_{uuid.uuid4().hex[:8]}"  # new in every session: no baseline cached
    before = STEP.replace("limit = Decimal(limit)\n    approved = amount <= limit",
                          f"{name} = Decimal(limit)\n    approved = amount <= {name}")
    change(client, u, before)
    path.write_text(before)
    first = plain(await client.protocol.send_request_async("stepsmith/mutants", {"uri": u}))
    assert first["summary"]["killed"] >= 1 and not first["notes"]
    after = before.replace(f"{name} = Decimal(limit)", f"{name} = Decimal(limit) * 2")
    assert after.count("\n") == before.count("\n")
    summary = await _saved(client, u, path, after)
    fresh = run_mutants(MutantsRequest(paths=[str(path)], cache=False))
    assert any("large" in n and "left out" in n for n in fresh.notes)
    assert {k: summary[k] for k in ("mutants", "killed", "survived", "timeout", "error")} == \
        {k: fresh.summary()[k] for k in ("mutants", "killed", "survived", "timeout", "error")}
    shown = {(d.range.start.line + 1, d.data["replacement"])
             for d in await diagnostics(client, u) if d.source == "stepsmith-mutants"}
    assert shown == {(m.line, m.replacement) for m in fresh.mutants if m.status == "survived"}
