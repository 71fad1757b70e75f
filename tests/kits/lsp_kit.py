"""pytest-lsp harness (helpers; conftest.py exposes the fixtures): the real server over stdio, driven by a push client (Neovim 0.7's
capabilities: no pull diagnostics) and a pull client (VS Code's capabilities plus
`textDocument.diagnostic`, as current VS Code sends)."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as T
from pygls.protocol import default_converter
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features
from pytest_lsp.client import LanguageClient as _LC

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SERVER = [sys.executable, "-m", "stepsmith.server"]
# the server with the test-suite's requests and failures injected (hooked_server.py)
HOOKED = [sys.executable, str(Path(__file__).resolve().parent / "hooked_server.py")]
TIMEOUT = 20.0


def _publish(client: _LC, params: T.PublishDiagnosticsParams):
    client.diagnostics[params.uri] = params.diagnostics
    client.published.setdefault(params.uri, []).append((params.version, params.diagnostics))


# What the server sends on the custom protocol, checked against its one declaration
# (server/protocol.py) on every request and notification of every suite that uses this client.
_SHAPES = {
    "stepsmith.runStepFixtures": "RunResponse", "stepsmith.runFixture": "RunResponse",
    "stepsmith.recordFixture": "RunResponse", "stepsmith.values.pickFixture":
    "PickFixtureResponse", "stepsmith.pending.list": "PendingListResponse",
    "stepsmith.pending.accept": "PendingDecisionResponse", "stepsmith.pending.reject":
    "PendingDecisionResponse", "stepsmith.pending.acceptAll": "PendingDecisionResponse",
    "stepsmith.pending.rejectAll": "PendingDecisionResponse", "stepsmith.mutants":
    "MutantsResponse", "stepsmith/mutants": "MutantsResponse", "stepsmith/coverage":
    "CoverageResponse", "stepsmith/reach": "ReachResponse", "stepsmith/fixtures":
    "FixturesResponse", "stepsmith/status": "StatusResponse", "stepsmith/python":
    "PythonResponse", "stepsmith/fixtureResults": "FixtureResultsNotification",
    "stepsmith/mutantResults": "MutantResultsNotification",
}


def shape_errors(method: str, answer) -> str | None:
    """Why `answer` (a request's result or a notification's params) is not the declared
    shape of `method`; None when it is, or when `method` has none (errors, nulls)."""
    from pydantic import ValidationError
    from stepsmith.server import protocol

    name = _SHAPES.get(method)
    if name is None or answer is None:
        return None
    try:
        getattr(protocol, name).model_validate(plain(answer))
    except ValidationError as exc:
        return f"{method} sent what is not a {name}: {exc}"
    return None


def _checked_requests(client: _LC) -> None:
    send = client.protocol.send_request_async

    async def send_checked(method, params=None, *args, **kwargs):
        if client.shape_problems:
            raise AssertionError("\n".join(client.shape_problems))
        answer = await send(method, params, *args, **kwargs)
        name = getattr(params, "command", None) if method == T.WORKSPACE_EXECUTE_COMMAND else method
        if (why := shape_errors(name, answer)) is not None:
            raise AssertionError(why)
        return answer

    client.protocol.send_request_async = send_checked


def _custom(method):
    def handler(client: _LC, params):
        client.custom.setdefault(method, []).append(params)
        if (why := shape_errors(method, params)) is not None:  # said by the next request
            client.shape_problems.append(why)
    return handler


def make_client() -> LanguageClient:
    client = _LC(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _publish
    features["stepsmith/fixtureResults"] = _custom("stepsmith/fixtureResults")
    features["stepsmith/mutantResults"] = _custom("stepsmith/mutantResults")

    def codelens_refresh(client: _LC, params):
        client.custom.setdefault("codeLens/refresh", []).append(params)

    features[T.WORKSPACE_CODE_LENS_REFRESH] = codelens_refresh

    def register_capability(client: _LC, params: T.RegistrationParams):
        client.custom.setdefault("registrations", []).extend(params.registrations)

    features[T.CLIENT_REGISTER_CAPABILITY] = register_capability
    register_lsp_features(client, features)
    client.published = {}
    client.custom = {}
    client.shape_problems = []
    _checked_requests(client)
    return client



CONFIG = ClientServerConfig(server_command=HOOKED, client_factory=make_client)


async def kill_server(client) -> None:
    """The server a test started with `client.start_io`, killed if it still runs (after a
    failed or hung shutdown)."""
    if client._server is not None and client._server.returncode is None:
        client._server.kill()
        await client._server.wait()


def push_capabilities() -> T.ClientCapabilities:
    return client_capabilities("neovim@v0.7.0")


def pull_capabilities() -> T.ClientCapabilities:
    caps = client_capabilities("visual-studio-code")
    caps.text_document.diagnostic = T.DiagnosticClientCapabilities(
        dynamic_registration=False, related_document_support=True)
    caps.workspace.diagnostics = T.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


def copy_examples(dest: Path) -> Path:
    shutil.copytree(EXAMPLES, dest / "examples", ignore=shutil.ignore_patterns(".stepsmith"))
    return dest / "examples"


def uri(path: Path) -> str:
    return from_fs_path(str(path))


DATA = REPO / "tests" / "server" / "data"


def copy_data(dest: Path) -> Path:
    shutil.copytree(DATA, dest / "ws", ignore=shutil.ignore_patterns(".stepsmith"))
    return dest / "ws"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """Two folders of test workflows (billing; chasing with two manifests), copied."""
    return copy_data(tmp_path_factory.mktemp("ws"))


async def initialize(lsp_client, root: Path, caps, init_options=None, folders=None):
    folders = folders or [root]
    await lsp_client.initialize_session(T.InitializeParams(
        capabilities=caps, root_uri=uri(root),
        workspace_folders=[T.WorkspaceFolder(uri=uri(f), name=f.name) for f in folders],
        initialization_options=init_options))


@pytest_lsp.fixture(config=CONFIG, scope="module", params=["push", "pull"])
async def client(lsp_client: LanguageClient, request, workspace):
    lsp_client.mode = request.param
    caps = push_capabilities() if request.param == "push" else pull_capabilities()
    await initialize(lsp_client, workspace, caps, {"stepsmith": {"runOnSave": False}})
    lsp_client.versions = {}
    yield
    await lsp_client.shutdown_session()


# ---------------------------------------------------------------------- helpers


def open_doc(client, path: Path, text: str | None = None, language: str | None = None) -> str:
    if text is None:
        text = path.read_text(encoding="utf-8")
    u = uri(path)
    language = language or ("python" if path.suffix == ".py" else "yaml" if path.suffix == ".yaml" else "json")
    client.versions[u] = 1
    client.published.pop(u, None)
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        text_document=T.TextDocumentItem(uri=u, language_id=language, version=1, text=text)))
    return u


def change(client, u: str, *edits) -> int:
    """edits: (start_line, start_char, end_line, end_char, text) or a full text string."""
    client.versions[u] = client.versions.get(u, 1) + 1
    changes = []
    for e in edits:
        if isinstance(e, str):
            changes.append(T.TextDocumentContentChangeWholeDocument(text=e))
        else:
            sl, sc, el, ec, text = e
            changes.append(T.TextDocumentContentChangePartial(
                range=T.Range(T.Position(sl, sc), T.Position(el, ec)), text=text))
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=u, version=client.versions[u]),
        content_changes=changes))
    return client.versions[u]


def close_doc(client, u: str) -> None:
    client.text_document_did_close(T.DidCloseTextDocumentParams(
        text_document=T.TextDocumentIdentifier(uri=u)))


async def diagnostics(client, u: str, version: int | None = None, predicate=None,
                      timeout: float = TIMEOUT) -> list[T.Diagnostic]:
    """The diagnostics of `u` at `version` (default: the latest we sent), via push or pull.
    `predicate` waits further until it holds (cross-file results arrive later)."""
    version = client.versions.get(u) if version is None else version
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        if client.mode == "pull":
            try:
                rep = await client.text_document_diagnostic_async(T.DocumentDiagnosticParams(
                    text_document=T.TextDocumentIdentifier(uri=u)))
                items = list(rep.items)
            except Exception:  # ServerCancelled while the document changes: retrigger
                items = None
        else:
            pubs = client.published.get(u) or []
            items = list(pubs[-1][1]) if pubs and pubs[-1][0] == version else None
        if items is not None and (predicate is None or predicate(items)):
            return items
        if loop.time() > deadline:
            raise AssertionError(f"no diagnostics for {u} v{version} (last: {client.published.get(u, [])[-1:]})")
        await asyncio.sleep(0.005)


def codes(diags) -> list[tuple[str, int]]:
    return sorted((str(d.code), d.range.start.line) for d in diags)


def plain(x):
    """pygls hands custom responses over as namedtuples: turn them into dicts/lists."""
    if hasattr(x, "_asdict"):
        return {k: plain(v) for k, v in x._asdict().items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    return x


async def command(client, name, args):
    return plain(await client.workspace_execute_command_async(
        T.ExecuteCommandParams(command=name, arguments=args)))


async def wait_for(pred, timeout=30.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        if loop.time() > end:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.05)
