"""The language server, pytest-lsp, real server: step files are checked with the grammar of
the Python their workflow pins (a helper process of that interpreter), while the server runs
on 3.11; the settings' `pythons` mapping names the built 3.13; a version not installed is an
SM501 diagnostic on `python:` with the same text `stepsmith/python` (the VS Code status bar)
gives; hovers name the interpreter; fixtures run from the editor on their own interpreter."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import lsp_kit as H
import pytest
import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient
from pythons_kit import (
    ADA,
    NEW_SYNTAX,
    NEW_SYNTAX_LINE,
    isolated_env,
    workflow,
)

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("sandbox")]

ROOT = Path(tempfile.mkdtemp(prefix="stepsmith-pinned-lsp-"))
CONFIG = ClientServerConfig(server_command=H.SERVER, client_factory=H.make_client,
                            server_env=isolated_env(ROOT))  # no 3.12, no 3.13 but the mapping


@pytest.fixture(scope="module")
def ws(py313) -> Path:
    root = ROOT / "ws"
    root.mkdir()
    (root / "pyproject.toml").write_text(
        f'[tool.stepsmith]\npythons = {{"3.13" = "{py313}"}}\n')
    workflow(root, "w313", "3.13", fixtures=ADA)
    workflow(root, "w311", "3.11", fixtures=ADA)
    workflow(root, "w312", "3.12")
    return root


@pytest_lsp.fixture(config=CONFIG, scope="module", params=["push", "pull"])
async def client(lsp_client: LanguageClient, request, ws):
    lsp_client.mode = request.param
    caps = H.push_capabilities() if request.param == "push" else H.pull_capabilities()
    await H.initialize(lsp_client, ws, caps, {"stepsmith": {"runOnSave": False,
                                                            "runOnType": False}})
    lsp_client.versions = {}
    yield
    await lsp_client.shutdown_session()


async def python_of(client, path: Path) -> dict | None:
    return H.plain(await client.protocol.send_request_async("stepsmith/python",
                                                            {"uri": H.uri(path)}))


async def hover_text(client, path: Path, line: int, character: int) -> str:
    got = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=H.uri(path)),
        position=T.Position(line, character)))
    return got.contents.value if got else ""


async def test_step_files_are_checked_with_their_pinned_grammar(client, ws):
    new = H.open_doc(client, ws / "w313" / "steps" / "step.py")
    old = H.open_doc(client, ws / "w311" / "steps" / "step.py")
    assert await H.diagnostics(client, new) == []
    diags = await H.diagnostics(client, old, predicate=lambda ds: ds)
    assert H.codes(diags) == [("SS001", NEW_SYNTAX_LINE - 1)]
    # typing in the 3.13 file: a 3.13 syntax error, then the fix
    H.change(client, new, NEW_SYNTAX.replace('", ".join', '", ".join(('))
    diags = await H.diagnostics(client, new, predicate=lambda ds: ds)
    assert [str(d.code) for d in diags] == ["SS001"]
    H.change(client, new, NEW_SYNTAX + "\n\ndef more(x):\n    return f\"{x!r:{f'{1}'}}\"\n")
    assert await H.diagnostics(client, new) == []
    H.change(client, new, NEW_SYNTAX)
    assert await H.diagnostics(client, new) == []


async def test_a_missing_version_is_a_diagnostic_on_python_and_the_status_bars_text(client, ws):
    man = ws / "w312" / "workflow.yaml"
    u = H.open_doc(client, man)
    diags = await H.diagnostics(client, u, predicate=lambda ds: ds)
    (d,) = [d for d in diags if str(d.code) == "SM501"]
    assert d.range.start.line == 2 and d.range.start.character == len("python: ")
    assert "Python 3.12 (the workflow's `python:`) is not installed here" in d.message
    assert "uv python install 3.12" in d.message
    status = await python_of(client, man)
    assert status["version"] is None and status["problem"] == d.message
    # the step file of that workflow: no verdict from a grammar older than its pin
    assert await python_of(client, ws / "w312" / "steps" / "step.py") == status


async def test_the_status_bar_and_hovers_name_the_interpreter(client, ws, py313):
    status = await python_of(client, ws / "w313" / "steps" / "step.py")
    assert status["pin"] == "3.13" and status["version"].startswith("3.13.")
    assert status["path"] == os.path.realpath(py313) and status["running"] is False
    assert status["manifestUri"] == H.uri(ws / "w313" / "workflow.yaml")
    mine = await python_of(client, ws / "w311" / "workflow.yaml")
    assert mine["version"].startswith("3.11.") and mine["running"] is True
    assert await python_of(client, ws / "pyproject.toml") is None
    H.open_doc(client, ws / "w313" / "workflow.yaml")
    card = await hover_text(client, ws / "w313" / "workflow.yaml", 2, 10)
    assert f"**Steps run on** `Python {status['version']}` at `{status['path']}`" in card, card
    H.open_doc(client, ws / "w313" / "steps" / "step.py")
    card = await hover_text(client, ws / "w313" / "steps" / "step.py", 3, 5)  # def label
    assert "what it can reach" in card and f"`Python {status['version']}`" in card, card
    reach = H.plain(await client.protocol.send_request_async("stepsmith/reach", {}))
    by = {w["workflow"]: w["python"] for w in reach["workflows"]}
    assert by["w313"]["interpreter"]["version"] == status["version"] and by["w312"]["problem"]


async def test_fixtures_run_from_the_editor_on_their_own_interpreter(client, ws):
    for name in ("w313", "w311"):
        res = H.plain(await client.workspace_execute_command_async(T.ExecuteCommandParams(
            command="stepsmith.runStepFixtures", arguments=[H.uri(ws / name / "workflow.yaml"),
                                                            "one"])))
        (r,) = res["results"]
        if name == "w313":
            assert r["status"] == "passed", r
        else:  # its step does not parse on its pin: refused, nothing ran
            assert r["status"] == "error" and "SS001" in r["message"], r
