"""Negotiation and workspace handling: UTF-8 position encoding, multi-root workspaces,
configuration without restart, pull-diagnostic refresh, stdout hygiene, `stepsmith serve`."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest
import pytest_lsp
from lsp_kit import (
    CONFIG,
    change,
    close_doc,
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


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def utf8(lsp_client: pytest_lsp.LanguageClient, tmp_path_factory):
    ws = copy_data(tmp_path_factory.mktemp("u8"))
    caps = push_capabilities()
    caps.general = T.GeneralClientCapabilities(position_encodings=[
        T.PositionEncodingKind.Utf16, T.PositionEncodingKind.Utf8])
    lsp_client.mode, lsp_client.versions, lsp_client.ws = "push", {}, ws
    lsp_client.init_result = None
    await initialize(lsp_client, ws, caps)
    yield
    await lsp_client.shutdown_session()


async def test_utf8_negotiated_and_exact(utf8):
    client = utf8
    ws = client.ws
    # negotiated in the initialize result
    text = "def f(x):\n    s = '𝔘é'; return eval(x)\n"
    u = open_doc(client, ws / "billing" / "steps" / "scratch8.py", text)
    diags = await diagnostics(client, u)
    line = text.split("\n")[1]
    col_bytes = len(line[: line.index("eval")].encode("utf-8"))
    assert diags[0].range.start.character == col_bytes  # 4 + 2 bytes more than code points
    v = change(client, u, (1, col_bytes, 1, col_bytes + 4, "exec"))
    diags = await diagnostics(client, u, v)
    assert "exec" in diags[0].message and diags[0].range.start.character == col_bytes


async def test_initialize_result_reports_utf8_when_offered(tmp_path):
    # a raw stdio session, so we can read the initialize result itself
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": None, "capabilities": {
                "general": {"positionEncodings": ["utf-16", "utf-8"]}}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    data = b"".join(
        f"Content-Length: {len(json.dumps(m).encode())}\r\n\r\n{json.dumps(m)}".encode() for m in msgs)
    out = subprocess.run([sys.executable, "-m", "stepsmith.server"], input=data, capture_output=True,
                         timeout=60, cwd=tmp_path)
    body = out.stdout.decode()
    first = json.loads(body.split("\r\n\r\n", 1)[1].split("Content-Length")[0])
    caps = first["result"]["capabilities"]
    assert caps["positionEncoding"] == "utf-8"
    assert caps["textDocumentSync"]["change"] == 2  # incremental
    assert set(caps["executeCommandProvider"]["commands"]) >= {
        "stepsmith.runStepFixtures", "stepsmith.runFixture", "stepsmith.recordFixture"}
    # stdout holds protocol messages only
    rest = body
    while rest:
        assert rest.startswith("Content-Length: "), rest[:80]
        n = int(rest[16: rest.index("\r\n")])
        start = rest.index("\r\n\r\n") + 4
        json.loads(rest[start: start + n])
        rest = rest[start + n:]


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def multi(lsp_client: pytest_lsp.LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("multi")
    a = copy_data(root / "a")
    b = copy_data(root / "b")
    lsp_client.mode, lsp_client.versions, lsp_client.ws = "pull", {}, (a, b)
    await initialize(lsp_client, a, pull_capabilities(), folders=[a / "billing"],
                     init_options={"stepsmith": {"runOnSave": False, "maxFileSize": 5000}})
    yield
    await lsp_client.shutdown_session()


async def test_multi_root_and_configuration(multi):
    client = multi
    a, b = client.ws
    reach = await client.protocol.send_request_async("stepsmith/reach", {})
    assert [w.workflow for w in reach.workflows] == ["billing"], [m.message for m in client.log_messages]
    # add a second root folder holding two workflows
    client.workspace_did_change_workspace_folders(T.DidChangeWorkspaceFoldersParams(
        event=T.WorkspaceFoldersChangeEvent(
            added=[T.WorkspaceFolder(uri=uri(b / "chasing"), name="chasing")], removed=[])))
    for _ in range(200):
        reach = await client.protocol.send_request_async("stepsmith/reach", {})
        if len(reach.workflows) == 3:
            break
        await asyncio.sleep(0.05)
    assert sorted(w.workflow for w in reach.workflows) == ["billing", "chasing", "chasing-weekly"]
    # a step file under the second root is validated in its workflows' context
    u = open_doc(client, b / "chasing" / "steps" / "late.py")
    assert await diagnostics(client, u) == []
    # maxFileSize from initializationOptions ...
    big = "def f(x):\n    return x\n" + "# pad\n" * 2000
    u2 = open_doc(client, a / "billing" / "steps" / "big.py", big)
    assert [d.code for d in await diagnostics(client, u2)] == ["SS002"]
    # ... and changed without a restart
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(
        settings={"stepsmith": {"maxFileSize": 10_000_000}}))
    assert await diagnostics(client, u2, predicate=lambda ds: ds == []) == []
    close_doc(client, u2)


async def test_pull_client_gets_refresh_on_cross_file_change(multi):
    client = multi
    a, b = client.ws
    manifest = b / "chasing" / "workflow.yaml"
    mu = open_doc(client, manifest)
    assert await diagnostics(client, mu) == []
    su = open_doc(client, b / "chasing" / "steps" / "late.py")
    await diagnostics(client, su)
    before = client.diagnostic_refresh_count
    text = (b / "chasing" / "steps" / "late.py").read_text().split("\n")
    i = text.index("def late(receivables):")
    change(client, su, (i, 9, i, 9, "extra, "))
    # the manifest's diagnostics changed because of another file: the server asks to re-pull
    ds = await diagnostics(client, mu, predicate=lambda ds: len(ds) > 0)
    assert ds and ds[0].code.startswith("SM2")
    for _ in range(100):
        if client.diagnostic_refresh_count > before:
            break
        await asyncio.sleep(0.05)
    assert client.diagnostic_refresh_count > before


async def test_stepsmith_serve_cli_and_module_entry(tmp_path):
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"processId": None, "rootUri": None, "capabilities": {}}},
            {"jsonrpc": "2.0", "id": 2, "method": "shutdown"}, {"jsonrpc": "2.0", "method": "exit"}]
    data = b"".join(
        f"Content-Length: {len(json.dumps(m).encode())}\r\n\r\n{json.dumps(m)}".encode() for m in msgs)
    out = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "serve"], input=data,
                         capture_output=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert b'"positionEncoding": "utf-16"' in out.stdout
    help_out = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "serve", "--help"],
                              capture_output=True, text=True, timeout=60)
    assert "--tcp" in help_out.stdout


async def watch_registration(client) -> T.Registration:
    """The didChangeWatchedFiles registration, which follows `initialized` asynchronously
    (the test may be the first of the module to run, e.g. alone on an xdist worker)."""
    for _ in range(200):
        regs = client.custom.get("registrations", [])
        found = [r for r in regs if r.method == T.WORKSPACE_DID_CHANGE_WATCHED_FILES]
        if found:
            return found[0]
        await asyncio.sleep(0.05)
    raise AssertionError("no didChangeWatchedFiles registration")


def watched(client, path, kind) -> None:
    client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(
        changes=[T.FileEvent(uri=uri(path), type=kind)]))


async def workflows_once(client, ready) -> list[str]:
    """The workflows reach lists, once `ready(names)` holds (or after ten seconds)."""
    for _ in range(200):
        reach = await client.protocol.send_request_async("stepsmith/reach", {})
        names = [w.workflow for w in reach.workflows]
        if ready(names):
            break
        await asyncio.sleep(0.05)
    return names


async def test_watched_files_new_manifest_on_disk(multi):
    client = multi
    a, _ = client.ws
    await watch_registration(client)
    new = a / "billing" / "extra.workflow.yaml"
    new.write_text((a / "billing" / "workflow.yaml").read_text().replace("workflow: billing", "workflow: extra"))
    watched(client, new, T.FileChangeType.Created)
    assert "extra" in await workflows_once(client, lambda names: "extra" in names)
    new.unlink()
    watched(client, new, T.FileChangeType.Deleted)
    assert "extra" not in await workflows_once(client, lambda names: "extra" not in names)


async def test_watched_files_deleted_workflow_folder(multi):
    """Deleting a workflow's folder is ONE event for the folder (VS Code reports no children):
    its manifests leave the index, and the registration asks for folder deletions."""
    import shutil

    client = multi
    a, _ = client.ws
    reg = await watch_registration(client)
    watchers = reg.register_options["watchers"] if isinstance(reg.register_options, dict) \
        else reg.register_options.watchers
    kinds = [(w["globPattern"], w.get("kind")) if isinstance(w, dict) else (w.glob_pattern, w.kind)
             for w in watchers]
    assert ("**/*", T.WatchKind.Delete) in kinds
    folder = a / "gone"
    shutil.copytree(a / "billing", folder)
    m = folder / "workflow.yaml"
    m.write_text(m.read_text().replace("workflow: billing", "workflow: gone"))
    watched(client, m, T.FileChangeType.Created)
    assert "gone" in await workflows_once(client, lambda names: "gone" in names)
    shutil.rmtree(folder)
    watched(client, folder, T.FileChangeType.Deleted)
    names = await workflows_once(client, lambda names: "gone" not in names)
    assert "gone" not in names and "billing" in names


async def test_serve_over_tcp(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "stepsmith.runner.cli", "serve", "--tcp",
                             f"127.0.0.1:{port}"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        for _ in range(400):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.05)
        else:
            raise AssertionError("server did not listen")
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"processId": None, "rootUri": None, "capabilities": {}}}).encode()
        writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await writer.drain()
        header = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
        n = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
        msg = json.loads(await reader.readexactly(n))
        assert msg["id"] == 1 and msg["result"]["serverInfo"]["name"] == "stepsmith"
        writer.close()
    finally:
        proc.kill()
        proc.wait()
