"""The first answers of `stepsmith/reach` and `stepsmith/fixtures`, sent the moment the session is
initialized, are already complete: they wait (bounded) for workflow discovery and the first
checks of the manifests it found, instead of answering empty lists. Push and pull clients, each
against a fresh server (a warmed-up server would hide the race)."""

from __future__ import annotations

import asyncio
import shutil
import time

import pytest
import pytest_lsp
from lsp_kit import (
    CONFIG,
    DATA,
    HOOKED,
    initialize,
    plain,
    pull_capabilities,
    push_capabilities,
    uri,
)
from lsprotocol import types as T

pytestmark = pytest.mark.asyncio(loop_scope="module")

SLOW = 0.4  # seconds the test hook adds to discovery and to each manifest check (a slow disk)
BILLING_STEPS = ["normalise", "rates", "total", "draft"]
CHASING_STEPS = ["late"]


@pytest_lsp.fixture(config=pytest_lsp.ClientServerConfig(
    server_command=[*HOOKED, "--slow", str(SLOW)], client_factory=CONFIG.client_factory),
    scope="module", params=["push", "pull"])
async def fresh(lsp_client: pytest_lsp.LanguageClient, request, tmp_path_factory):
    """A server that has only been started: the test itself initializes it."""
    ws = tmp_path_factory.mktemp(f"startup-{request.param}") / "ws"
    # a workspace with exactly two workflows, in two folders
    shutil.copytree(DATA, ws, ignore=shutil.ignore_patterns(".stepsmith", "weekly.workflow.yaml"))
    extra = ws.parent / "extra"  # a folder added later, with a third workflow
    shutil.copytree(DATA / "chasing", extra, ignore=shutil.ignore_patterns(".stepsmith", "workflow.yaml"))
    lsp_client.mode, lsp_client.versions, lsp_client.ws, lsp_client.extra = request.param, {}, ws, extra
    yield
    await lsp_client.shutdown_session()


async def _request(client, method, params):
    return plain(await client.protocol.send_request_async(method, params))


def _steps(res) -> dict[str, list[str]]:
    """Each workflow's step ids: a reach record's `step_id`, a fixtures listing's `id`."""
    key = "step_id" if "sentence" in res else "id"
    return {w["workflow"]: [s[key] for s in w["steps"]] for w in res["workflows"]}


async def test_reach_and_fixtures_complete_right_after_initialized(fresh):
    client = fresh
    ws = client.ws
    caps = push_capabilities() if client.mode == "push" else pull_capabilities()
    await initialize(client, ws, caps, {"stepsmith": {"runOnSave": False}})
    late = {"uri": uri(ws / "chasing" / "steps" / "late.py")}
    total = {"uri": uri(ws / "billing" / "steps" / "total.py")}
    started = time.monotonic()
    # sent immediately after `initialized`, all at once: whole workspace and scoped to step files
    # (a step file belongs to a workflow only once that manifest has been checked)
    waiting = asyncio.gather(
        _request(client, "stepsmith/reach", {}),
        _request(client, "stepsmith/fixtures", {}),
        _request(client, "stepsmith/reach", late),
        _request(client, "stepsmith/fixtures", total),
    )
    await asyncio.sleep(0)  # let gather send all four before the next request
    # the wait does not block the event loop: another request is answered meanwhile
    rule = await _request(client, "stepsmith/rule", {"code": "SS101"})
    assert rule["code"] == "SS101"
    # answered while the four still wait (no clock: a loaded machine took 0.46 s for this)
    assert not waiting.done()
    reach, fixtures, reach_late, fixtures_total = await waiting
    assert time.monotonic() - started < 5.0  # bounded: never the client's 10 s retry window
    want = {"billing": BILLING_STEPS, "chasing": CHASING_STEPS}
    assert _steps(reach) == want
    assert _steps(fixtures) == want
    assert _steps(reach_late) == {"chasing": CHASING_STEPS}
    assert _steps(fixtures_total) == {"billing": BILLING_STEPS}
    for w in reach["workflows"] + reach_late["workflows"]:
        assert w["error"] is None
        for s in w["steps"]:
            assert s["codeLocation"] is not None and s["codeLocation"]["uri"].endswith(".py")
    by = {w["workflow"]: {s["id"]: s for s in w["steps"]} for w in fixtures["workflows"]}
    assert [f["name"] for f in by["billing"]["total"]["fixtures"]] == ["empty", "two-items", "wrong"]
    assert [f["name"] for f in by["chasing"]["late"]["fixtures"]] == ["one-late"]
    assert by["billing"]["total"]["uri"].endswith("steps/total.py")
    # once ready, answers are immediate
    started = time.monotonic()
    assert _steps(await _request(client, "stepsmith/reach", late)) == {"chasing": CHASING_STEPS}
    assert time.monotonic() - started < 1.0
    # a workspace folder added later: the next answers wait for its discovery and checks too
    client.workspace_did_change_workspace_folders(T.DidChangeWorkspaceFoldersParams(
        event=T.WorkspaceFoldersChangeEvent(
            added=[T.WorkspaceFolder(uri=uri(client.extra), name="extra")], removed=[])))
    weekly = {"uri": uri(client.extra / "steps" / "late.py")}
    reach, fixtures = await asyncio.gather(_request(client, "stepsmith/reach", {}),
                                           _request(client, "stepsmith/reach", weekly))
    assert _steps(reach) == {**want, "chasing-weekly": ["weekly"]}
    assert _steps(fixtures) == {"chasing-weekly": ["weekly"]}
