"""An (untrusted) workspace whose manifest is
`-> /dev/zero` or a symlinked root-only host file. The server runs under RLIMIT_AS, so the
old unbounded read fails fast (MemoryError) rather than waking the OOM killer; it must keep
answering and never show the host file's text."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys

import pytest
import pytest_lsp
from lsp_kit import CONFIG, DATA, initialize, plain, push_capabilities, uri

pytestmark = pytest.mark.asyncio(loop_scope="module")
CANARY = "canary-host-manifest-0600-4be1"
LIMITED = [sys.executable, "-c",
           "import resource, runpy; resource.setrlimit(resource.RLIMIT_AS, (1 << 31, 1 << 31)); "
           "runpy.run_module('stepsmith.server', run_name='__main__')"]


@pytest_lsp.fixture(config=pytest_lsp.ClientServerConfig(
    server_command=LIMITED, client_factory=CONFIG.client_factory,
    server_env=CONFIG.server_env), scope="module")
async def hostile(lsp_client: pytest_lsp.LanguageClient, tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    ws = base / "ws"
    shutil.copytree(DATA / "billing", ws / "billing", ignore=shutil.ignore_patterns(".stepsmith"))
    (ws / "zero").mkdir()
    os.symlink("/dev/zero", ws / "zero" / "workflow.yaml")
    secret = base / "host-secret.yaml"
    secret.write_text(f"- {CANARY}\n")
    secret.chmod(0o600)
    (ws / "stolen").mkdir()
    os.symlink(secret, ws / "stolen" / "workflow.yaml")
    lsp_client.ws, lsp_client.versions = ws, {}
    # an untrusted workspace: the server still analyses (no runs), so it must read safely
    await initialize(lsp_client, ws, push_capabilities(),
                     {"stepsmith": {"runOnSave": False, "trusted": False}})
    yield
    await lsp_client.shutdown_session()


async def test_dev_zero_and_symlinked_host_manifests_are_refused(hostile):
    client = hostile
    ws = client.ws
    res = plain(await asyncio.wait_for(
        client.protocol.send_request_async("stepsmith/reach", {}), 30))
    names = [w.get("workflow") for w in res["workflows"]]
    assert "billing" in names, res
    # still alive and answering after discovery read both hostile manifests
    rule = plain(await client.protocol.send_request_async("stepsmith/rule", {"code": "SS101"}))
    assert rule["code"] == "SS101"
    await asyncio.sleep(0.5)
    shown = repr(res) + repr({k: plain(v) for k, v in client.diagnostics.items()})
    assert CANARY not in shown
    for name in ("zero", "stolen"):
        d = client.diagnostics.get(uri(ws / name / "workflow.yaml"))
        if d:  # when reported, it is a refusal to read, never the content
            assert all("cannot read" in x.message for x in d), d
