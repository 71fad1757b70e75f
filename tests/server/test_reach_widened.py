"""The "What each step can reach" answer marks what widened since git's HEAD, on the unsaved
manifest; only in a trusted workspace (it runs git)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess

import pytest
import pytest_lsp
from lsp_kit import CONFIG, DATA, initialize, open_doc, plain, push_capabilities

pytestmark = pytest.mark.asyncio(loop_scope="module")


def _git_repo(base):
    ws = base / "ws"
    shutil.copytree(DATA / "billing", ws / "billing", ignore=shutil.ignore_patterns(".stepsmith"))
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *args], cwd=ws, env=env, check=True, capture_output=True)
    return ws


@pytest_lsp.fixture(config=CONFIG, scope="module", params=[True, False], ids=["trusted", "untrusted"])
async def repo_client(lsp_client: pytest_lsp.LanguageClient, request, tmp_path_factory):
    ws = _git_repo(tmp_path_factory.mktemp("reachgit"))
    lsp_client.ws, lsp_client.versions, lsp_client.trusted = ws, {}, request.param
    await initialize(lsp_client, ws, push_capabilities(),
                     {"stepsmith": {"runOnSave": False, "runOnType": False,
                                    "trusted": request.param}})
    yield
    await lsp_client.shutdown_session()


async def reach(client):
    return plain(await asyncio.wait_for(client.protocol.send_request_async("stepsmith/reach", {}), 30))


async def test_unsaved_widening_is_marked_per_step(repo_client):
    client = repo_client
    res = await reach(client)
    (wf,) = res["workflows"]
    if not client.trusted:
        assert "sinceHead" not in wf  # git is never run for an untrusted folder
        return
    assert wf["sinceHead"] == {"status": "unchanged", "widens": False, "changes": []}
    path = client.ws / "billing" / "workflow.yaml"
    text = path.read_text().replace(
        "      items: steps.normalise.output\n  - id: draft",
        "      items: steps.normalise.output\n    network: public_egress\n  - id: draft")
    open_doc(client, path, text)  # unsaved: the disk still matches HEAD
    for _ in range(50):
        wf = (await reach(client))["workflows"][0]
        if wf["sinceHead"]["changes"]:
            break
        await asyncio.sleep(0.1)
    assert wf["sinceHead"]["status"] == "changed" and wf["sinceHead"]["widens"] is True
    steps = {s["step_id"]: s for s in wf["steps"]}
    (change,) = steps["total"]["changesSinceHead"]
    assert change["kind"] == "network" and change["widens"] is True
    assert change["description"] == "network: none → public egress"
    assert steps["draft"]["changesSinceHead"] == []
