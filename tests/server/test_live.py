"""Live feedback (issue 12) through a real LSP client: run on type by default on the unsaved
buffer; a half-typed buffer keeps the last results (stale lens) and starts no sandbox; a newer
edit kills the older run's sandboxes; coverage (`stepsmith/coverage`, the "no fixture takes
this branch" note) and values (inlay hints, hover) on a step with two branches and a loop and
a fixture for one branch only; a credential never in a value hint."""

from __future__ import annotations

import asyncio
import json
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
from sandbox_kit import alive
from wfkit import TOTAL_CODE

pytestmark = pytest.mark.asyncio(loop_scope="module")

STEP = TOTAL_CODE + '''

def call(connections):
    token = connections["api"]
    header = "Bearer " + token
    return len(header)
'''
MANIFEST = '''workflow: live
version: 1
python: "3.11"
trigger: {manual: {}}
connections:
  api: {description: the API}
sources:
  items: {connection: api}
steps:
  - id: total
    explanation: Sum the items.
    code: steps/total.py:total
    inputs: {items: sources.items, currency: EUR}
  - id: call
    explanation: Call the API.
    code: steps/total.py:call
    connections: [api]
'''
PLACEHOLDER = "stepsmith-placeholder:api"


def fixture(inputs, out):
    return json.dumps({"inputs": inputs, "evaluation_time": "2026-12-01T07:00:00+00:00",
                       "expected": {"output": out}})


@pytest.fixture(scope="module")
def live_ws(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("live") / "wf"
    (root / "steps").mkdir(parents=True)
    (root / "workflow.yaml").write_text(MANIFEST)
    (root / "steps/total.py").write_text(STEP)
    (root / "fixtures/total").mkdir(parents=True)
    (root / "fixtures/call").mkdir(parents=True)
    (root / "fixtures/total/eur.json").write_text(
        fixture({"items": ["12.50", "7.50"], "currency": "EUR"}, "20.00"))
    (root / "fixtures/call/one.json").write_text(fixture({}, len("Bearer " + PLACEHOLDER)))
    return root


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient, live_ws):
    lsp_client.mode = "push"
    caps = push_capabilities()
    # defaults: runOnType on (trusted), 300 ms debounce
    await initialize(lsp_client, live_ws, caps, {"stepsmith": {"runOnSave": False}})
    lsp_client.versions = {}
    yield
    await lsp_client.shutdown_session()


async def wait_for(pred, timeout=30.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        if loop.time() > end:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.02)


def notes(client, step_id):
    return [plain(n) for n in client.custom.get("stepsmith/fixtureResults", [])
            if plain(n)["stepId"] == step_id]


async def sandboxes(client):
    return plain(await client.protocol.send_request_async("stepsmith/_sandboxes", {}))


async def lens_titles(client, u):
    lenses = await client.text_document_code_lens_async(T.CodeLensParams(
        text_document=T.TextDocumentIdentifier(uri=u)))
    return [lens.command.title for lens in lenses or []]



async def typed(client, u, text, step_id="total"):
    """Replace the buffer and wait for the run that follows (runOnType)."""
    before = len(notes(client, step_id))
    change(client, u, text)
    await wait_for(lambda: len(notes(client, step_id)) > before)
    return notes(client, step_id)[-1]["results"]


async def test_a_typed_edit_runs_the_unsaved_buffer(client, live_ws):
    u = open_doc(client, live_ws / "steps/total.py")
    await diagnostics(client, u)
    res = await typed(client, u, STEP.replace('Decimal("1")\n', 'Decimal("2")\n'))
    assert [(r["fixture"], r["status"]) for r in res] == [("eur", "failed")]
    assert "40.00" in res[0]["diff"]
    assert (live_ws / "steps/total.py").read_text() == STEP  # nothing saved
    res = await typed(client, u, STEP)
    assert [(r["fixture"], r["status"]) for r in res] == [("eur", "passed")]
    titles = await lens_titles(client, u)
    assert "✓ 1 passed" in titles


async def test_a_half_typed_buffer_keeps_stale_results_and_starts_no_sandbox(client, live_ws):
    u = uri(live_ws / "steps/total.py")
    started = (await sandboxes(client))["started"]
    before = len(notes(client, "total"))
    change(client, u, STEP.replace("    return str(sum_)", "    return str(sum_"))
    titles = []

    async def stale():
        titles[:] = await lens_titles(client, u)
        return "✓ 1 passed (before your edit)" in titles

    loop = asyncio.get_running_loop()
    end = loop.time() + 20
    while not await stale():
        assert loop.time() < end, titles
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.6)  # past the debounce: still nothing ran
    assert (await sandboxes(client))["started"] == started
    assert len(notes(client, "total")) == before
    await typed(client, u, STEP)  # the fixed buffer runs again, the lens is fresh
    assert "✓ 1 passed" in await lens_titles(client, u)


async def test_a_newer_edit_kills_the_older_runs_sandboxes(client, live_ws):
    u = uri(live_ws / "steps/total.py")
    spin = STEP.replace('    sum_ = Decimal("0")\n', '    sum_ = Decimal("0")\n    while sum_ == 0:\n        pass\n')
    change(client, u, spin)
    running = []

    async def seen():
        running[:] = (await sandboxes(client))["running"]
        return bool(running)

    loop = asyncio.get_running_loop()
    end = loop.time() + 20
    while not await seen():
        assert loop.time() < end, "the spinning run never started"
        await asyncio.sleep(0.02)
    res = await typed(client, u, STEP)  # the newer edit
    assert [(r["fixture"], r["status"]) for r in res] == [("eur", "passed")]
    assert not any(alive(p) for p in running), running  # killed and reaped
    assert not set(running) & set((await sandboxes(client))["running"])


async def test_coverage_and_the_untaken_branch_note(client, live_ws):
    u = uri(live_ws / "steps/total.py")
    await wait_for(lambda: notes(client, "total") and notes(client, "total")[-1]["results"][0]["status"] == "passed")
    loop = asyncio.get_running_loop()
    end = loop.time() + 20
    while True:  # both steps of the file have run on this text (one after the other)
        cov = plain(await client.protocol.send_request_async("stepsmith/coverage", {"uri": u}))
        c = cov["coverage"]
        if c and set(c["fixtures"]) == {"eur", "one"}:
            break
        assert loop.time() < end, c
        await asyncio.sleep(0.05)
    assert 7 in c["missing"] and 5 not in c["missing"] and 12 in c["executed"]
    assert [4, 7] in c["missingArcs"] and [9, 10] in c["takenArcs"] and [9, 12] in c["takenArcs"]
    assert c["stale"] is False and set(c["fixtures"]) == {"eur", "one"}
    diags = await diagnostics(client, u, predicate=lambda ds: any(
        d.source == "stepsmith-coverage" for d in ds))
    (note,) = [d for d in diags if d.source == "stepsmith-coverage"]
    assert note.severity == T.DiagnosticSeverity.Information
    assert note.message == "no fixture takes this branch (to line 8)"
    assert note.range.start.line == 4


async def test_values_as_inlay_hints_and_in_the_hover(client, live_ws):
    u = uri(live_ws / "steps/total.py")
    hints = await client.text_document_inlay_hint_async(T.InlayHintParams(
        text_document=T.TextDocumentIdentifier(uri=u),
        range=T.Range(T.Position(0, 0), T.Position(13, 0))))
    got = [(h.position.line, h.label) for h in hints]
    assert got == [(5, "= Decimal('1')"), (8, "= Decimal('0')"),
                   (9, "= '12.50' … '7.50' (3×)"),
                   (10, "= Decimal('12.50') … Decimal('7.50') (2×)"),
                   (11, "= Decimal('12.50') … Decimal('20.00') (2×)"), (12, "→ '20.00'")]
    hover = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=T.Position(10, 10)))
    assert "`amount = Decimal('12.50')`" in hover.contents.value
    assert "fixture `eur`" in hover.contents.value


async def test_a_credential_never_appears_in_a_value_hint(client, live_ws):
    u = uri(live_ws / "steps/total.py")
    hints = await client.text_document_inlay_hint_async(T.InlayHintParams(
        text_document=T.TextDocumentIdentifier(uri=u),
        range=T.Range(T.Position(15, 0), T.Position(19, 0))))
    shown = [(h.position.line, h.label) for h in hints]
    assert shown[:2] == [(16, "= '[redacted:api]'"), (17, "= 'Bearer [redacted:api]'")]
    assert all(PLACEHOLDER not in h.label and PLACEHOLDER not in h.tooltip.value for h in hints)
    hover = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=T.Position(17, 6)))
    assert hover is not None and PLACEHOLDER not in hover.contents.value
    assert "[redacted:api]" in hover.contents.value


async def test_pick_the_fixture_for_values(client, live_ws):
    u = uri(live_ws / "steps/total.py")
    res = plain(await client.workspace_execute_command_async(T.ExecuteCommandParams(
        command="stepsmith.values.pickFixture", arguments=[u])))
    assert res["fixture"] in ("eur", "one")
    assert sorted(f["name"] for f in res["fixtures"]) == ["eur", "one"]
    res = plain(await client.workspace_execute_command_async(T.ExecuteCommandParams(
        command="stepsmith.values.pickFixture", arguments=[u, "one"])))
    assert res["fixture"] == "one"


async def test_run_with_repeat_runs_each_fixture_n_times(client, live_ws):
    before = (await sandboxes(client))["started"]
    res = plain(await client.workspace_execute_command_async(T.ExecuteCommandParams(
        command="stepsmith.runStepFixtures",
        arguments=[uri(live_ws / "workflow.yaml"), "total", {"repeat": 3}])))
    assert [(r["fixture"], r["status"]) for r in res["results"]] == [("eur", "passed")]
    after = (await sandboxes(client))["started"]
    assert after - before == 3  # one fixture, run 3 times in fresh sandboxes
