"""Workspace edges found in a real client: a step file created after its manifest named it, a
step file opened without its workflow's folder as root (no folder, or `steps/`), and a
manifest that is broken mid-edit while its step files are open. Push and pull clients."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsp_kit import (
    CONFIG,
    change,
    copy_data,
    diagnostics,
    initialize,
    open_doc,
    pull_capabilities,
    push_capabilities,
    uri,
)
from lsprotocol import types as T

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=CONFIG, scope="module", params=["push", "pull"])
async def edges(lsp_client: pytest_lsp.LanguageClient, request, tmp_path_factory):
    ws = copy_data(tmp_path_factory.mktemp(f"edges-{request.param}"))
    lsp_client.mode, lsp_client.versions, lsp_client.ws = request.param, {}, ws
    caps = push_capabilities() if request.param == "push" else pull_capabilities()
    await initialize(lsp_client, ws, caps, {"stepsmith": {"runOnSave": False}})
    yield
    await lsp_client.shutdown_session()


async def test_new_step_file_clears_sm201(edges):
    client, ws = edges, edges.ws
    manifest = ws / "billing" / "workflow.yaml"
    text = manifest.read_text() + (
        "  - id: fresh\n    explanation: A step whose file is created later.\n"
        "    code: steps/fresh.py:fresh\n    inputs:\n      items: steps.normalise.output\n")
    manifest.write_text(text)
    mu = open_doc(client, manifest, text)
    ds = await diagnostics(client, mu, predicate=lambda ds: any(d.code == "SM201" for d in ds))
    assert [d.code for d in ds] == ["SM201"]
    step = ws / "billing" / "steps" / "fresh.py"
    step.write_text("def fresh(items):\n    return items\n")
    client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(
        changes=[T.FileEvent(uri=uri(step), type=T.FileChangeType.Created)]))
    su = open_doc(client, step)
    assert await diagnostics(client, su) == []
    assert await diagnostics(client, mu, predicate=lambda ds: ds == []) == []


async def test_broken_manifest_keeps_the_last_good_context(edges):
    client, ws = edges, edges.ws
    manifest = ws / "chasing" / "workflow.yaml"
    mu = open_doc(client, manifest)
    assert await diagnostics(client, mu) == []
    rates = ws / "billing" / "steps" / "rates.py"  # urllib: allowed only as public_egress
    ru = open_doc(client, rates)
    assert await diagnostics(client, ru) == []
    bm = ws / "billing" / "workflow.yaml"
    bu = open_doc(client, bm)
    await diagnostics(client, bu)
    good = bm.read_text()
    change(client, bu, good.replace("steps:\n", "steps: [\n", 1))  # mid-edit: YAML broken
    ds = await diagnostics(client, bu, predicate=lambda ds: any(d.code == "SM001" for d in ds))
    assert ds
    # an edit to the step file while the manifest is broken: validated in the last good context
    v = change(client, ru, (0, 0, 0, 0, "# editing\n"))
    assert await diagnostics(client, ru, v) == []
    if client.mode == "push":
        assert all(list(d) == [] for _, d in client.published[ru]), client.published[ru]
    change(client, bu, good)
    assert await diagnostics(client, bu, predicate=lambda ds: ds == []) == []


@pytest_lsp.fixture(config=CONFIG, scope="module", params=["no-folder", "steps-root"])
async def lonely(lsp_client: pytest_lsp.LanguageClient, request, tmp_path_factory):
    ws = copy_data(tmp_path_factory.mktemp(f"lonely-{request.param}"))
    lsp_client.mode, lsp_client.versions, lsp_client.ws = "push", {}, ws
    caps = push_capabilities()
    if request.param == "no-folder":
        await lsp_client.initialize_session(T.InitializeParams(
            capabilities=caps, root_uri=None, workspace_folders=None,
            initialization_options={"stepsmith": {"runOnSave": False}}))
    else:
        steps = ws / "billing" / "steps"
        await initialize(lsp_client, steps, caps, {"stepsmith": {"runOnSave": False}})
    yield
    await lsp_client.shutdown_session()


async def test_step_file_outside_the_roots_finds_its_workflow_upward(lonely):
    client, ws = lonely, lonely.ws
    rates = ws / "billing" / "steps" / "rates.py"
    u = open_doc(client, rates)
    assert await diagnostics(client, u) == []  # no false SS105: the manifest says public_egress
    text = rates.read_text().split("\n")
    line = next(i for i, t in enumerate(text) if t.startswith("def fx_rates"))
    hover = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=T.Position(line, 5)))
    assert hover is not None and "rates" in hover.contents.value
    lenses = await client.text_document_code_lens_async(T.CodeLensParams(
        text_document=T.TextDocumentIdentifier(uri=u)))
    assert [lens.command.title for lens in lenses] == ["▶ Run 1 fixture (rates)"]
