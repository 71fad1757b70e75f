"""After an edit is undone or reverted and the document closed, the server answers from the file
on disk: the reach view, a fixture run, a recording and a run on save never see the text that
was typed and taken back.

The editor's sequences, played on the real server: a manifest edited to a typo (its diagnostics
awaited), then reverted by a didChange back to the saved text and closed, or closed with no
didChange (the disk text, which never had the typo, applies again); a step file edited to a
violation, undone, saved (didSave without text) and closed. The server is slow here (each
manifest check takes SLOW seconds), so the check of the disk text that a close starts is still
running when the next requests arrive, as on a loaded machine.

What VS Code's integration suite saw (a `verison:` typo, an `import os` answered long after the
revert) was code-server's auto-save (`files.autoSave` is `afterDelay`, 1 s, in VS Code for the
web): a revert that came later than a second reloaded the saved typo. The last test shows the
server answers from the disk then too, as it must."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsp_kit import (
    CONFIG,
    EXAMPLES,
    HOOKED,
    change,
    close_doc,
    command,
    diagnostics,
    initialize,
    open_doc,
    plain,
    pull_capabilities,
    push_capabilities,
    uri,
    wait_for,
)
from lsprotocol import types as T

pytestmark = pytest.mark.asyncio(loop_scope="module")

SLOW = 0.5  # seconds the test hook adds to every manifest check (a loaded machine)
WORKFLOW = "invoice-matching"
FIXTURE = ("summary", "acme-2026-12-01")


@pytest_lsp.fixture(config=pytest_lsp.ClientServerConfig(
    server_command=[*HOOKED, "--slow", str(SLOW)], client_factory=CONFIG.client_factory),
    scope="module", params=["push", "pull"])
async def client(lsp_client: pytest_lsp.LanguageClient, request, tmp_path_factory):
    ws = tmp_path_factory.mktemp(f"revert-{request.param}") / "ws"
    for name in ("invoice-matching", "payment-chasing"):
        shutil.copytree(EXAMPLES / name, ws / name, ignore=shutil.ignore_patterns(".stepsmith"))
    lsp_client.mode, lsp_client.versions, lsp_client.ws = request.param, {}, ws
    caps = push_capabilities() if request.param == "push" else pull_capabilities()
    await initialize(lsp_client, ws, caps, {"stepsmith": {"runOnSave": True, "runOnType": False}})
    yield
    await lsp_client.shutdown_session()


def step_ids(manifest: Path) -> list[str]:
    """A manifest's step ids, read from its text (not from the server)."""
    return re.findall(r"^\s*-\s*id:\s*([a-z][a-z0-9_-]*)\s*$", manifest.read_text(), re.M)


def has(code: str):
    return lambda ds: any(str(d.code) == code for d in ds)


async def reach_steps(client, workflow: str) -> list[str]:
    res = plain(await client.protocol.send_request_async("stepsmith/reach", {}))
    wf = next(w for w in res["workflows"] if w["workflow"] == workflow)
    return [s["step_id"] for s in wf["steps"]]


async def run_fixture(client) -> dict:
    step, name = FIXTURE
    fx = client.ws / WORKFLOW / "fixtures" / step / f"{name}.json"
    res = await command(client, "stepsmith.runFixture", [uri(fx)])
    [r] = res["results"]
    assert r["fixture"] == name
    return r


async def typo(client) -> tuple[str, int]:
    """Open the manifest and type `verison: 4` above `version:` (as the VS Code suite does);
    its SM003 arrives."""
    manifest = client.ws / WORKFLOW / "workflow.yaml"
    mu = open_doc(client, manifest)
    await diagnostics(client, mu)
    line = next(i for i, x in enumerate(manifest.read_text().split("\n")) if x.startswith("version:"))
    change(client, mu, (line, 0, line, 0, "verison: 4\n"))
    await diagnostics(client, mu, predicate=has("SM003"))
    return mu, line


async def assert_disk_answers(client):
    """What the reach view and a Test Explorer run of one fixture ask, answered from disk
    right away (the re-check of the disk text is still running: SLOW)."""
    manifest = client.ws / WORKFLOW / "workflow.yaml"
    assert await reach_steps(client, WORKFLOW) == step_ids(manifest)
    r = await run_fixture(client)
    assert r["status"] == "passed", r


async def test_manifest_typo_reverted_then_closed(client):
    mu, line = await typo(client)
    change(client, mu, (line, 0, line + 1, 0, ""))  # the revert: back to the saved text
    close_doc(client, mu)
    await assert_disk_answers(client)


async def test_manifest_typo_closed_without_revert(client):
    mu, _ = await typo(client)
    close_doc(client, mu)  # no didChange: the disk text (never the typo) applies again
    await assert_disk_answers(client)


async def test_manifest_closed_right_after_the_typo(client):
    """The close follows the typo at once (its diagnostics not awaited): the typo's analysis is
    queued or running when the close queues the disk text's check (which must not be dropped as
    a duplicate, nor overtaken by a check of the typo recorded after it)."""
    manifest = client.ws / WORKFLOW / "workflow.yaml"
    mu = open_doc(client, manifest)
    await diagnostics(client, mu)
    line = manifest.read_text().split("\n").index("version: 3")
    change(client, mu, (line, 0, line, 0, "verison: 4\n"))
    close_doc(client, mu)
    await assert_disk_answers(client)
    await assert_disk_answers(client)  # and still, once every queued check has been recorded


async def test_step_violation_undone_saved_and_closed(client):
    ws = client.ws
    risk = ws / "payment-chasing" / "steps" / "risk.py"
    manifest = ws / "payment-chasing" / "workflow.yaml"
    su = open_doc(client, risk)
    await diagnostics(client, su, predicate=lambda ds: not has("SS101")(ds))
    change(client, su, (0, 0, 0, 0, "import os\n"))
    await diagnostics(client, su, predicate=has("SS101"))
    change(client, su, (0, 0, 1, 0, ""))  # undo
    await diagnostics(client, su, predicate=lambda ds: not has("SS101")(ds))
    seen = len(client.custom.get("stepsmith/fixtureResults", []))
    client.text_document_did_save(T.DidSaveTextDocumentParams(
        text_document=T.TextDocumentIdentifier(uri=su)))
    close_doc(client, su)
    # the run on save: every fixture of `risk` passes (none is blocked by an SS101 at 1:8)
    await wait_for(lambda: any(plain(n)["stepId"] == "risk" for n in
                               client.custom.get("stepsmith/fixtureResults", [])[seen:]))
    saved = next(plain(n) for n in client.custom["stepsmith/fixtureResults"][seen:]
                 if plain(n)["stepId"] == "risk")
    assert saved["results"] and {r["status"] for r in saved["results"]} == {"passed"}, saved
    fx = json.loads((ws / "payment-chasing" / "fixtures" / "risk" / "harbour-2026-12-01.json").read_text())
    res = await command(client, "stepsmith.recordFixture",
                        [uri(manifest), "risk", f"recorded-{client.mode}", json.dumps(fx["inputs"]),
                         fx["evaluation_time"]])
    assert res["results"][0]["status"] == "recorded", res
    res = await command(client, "stepsmith.runStepFixtures", [uri(manifest), "risk"])
    assert res["results"] and {r["status"] for r in res["results"]} == {"passed"}, res


async def test_an_autosaved_typo_is_what_the_disk_says(client):
    """code-server saved the typo a second after it was typed (auto-save); the revert then
    reloads the saved typo, so no didChange follows: the server answers from that disk text,
    and once the file is restored (as the suite's clean-up does), from the restored one."""
    manifest = client.ws / WORKFLOW / "workflow.yaml"
    disk = manifest.read_text()
    mu, line = await typo(client)
    lines = disk.split("\n")
    manifest.write_text("\n".join([*lines[:line], "verison: 4", *lines[line:]]))  # auto-save
    client.text_document_did_save(T.DidSaveTextDocumentParams(
        text_document=T.TextDocumentIdentifier(uri=mu)))
    close_doc(client, mu)
    assert await reach_steps(client, WORKFLOW) == []  # the saved manifest does not validate
    r = await run_fixture(client)
    assert r["status"] == "error" and "SM003" in r["message"] and "verison" in r["message"], r
    manifest.write_text(disk)
    client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(changes=[
        T.FileEvent(uri=mu, type=T.FileChangeType.Changed)]))
    await assert_disk_answers(client)
