"""textDocument/prepareRename + rename end to end (pytest-lsp, the real server over stdio) on
a copy of examples/invoice-matching, with three clients' capabilities: VS Code (one RenameFile
of the fixtures folder), Neovim 0.7 (it cannot rename a folder: one RenameFile per fixture into
a folder the server made) and a client without resource operations (`changes` + a warning).
The test applies the WorkspaceEdit as the client would, then checks the workflow."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
import pytest_lsp
from lsp_kit import CONFIG, EXAMPLES, uri
from lsprotocol import types as T
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, client_capabilities
from stepsmith.runner.manifest import check_workflow

pytestmark = pytest.mark.asyncio

CLIENTS = {
    "vscode": (lambda: client_capabilities("visual-studio-code"), T.ClientInfo("Visual Studio Code", "1.100.3")),
    "neovim": (lambda: client_capabilities("neovim@v0.7.0"), T.ClientInfo("Neovim", "0.7.2")),
    "bare": (lambda: T.ClientCapabilities(), None),
}


@pytest.fixture()
def wf(tmp_path) -> Path:
    shutil.copytree(EXAMPLES / "invoice-matching", tmp_path / "invoice-matching",
                    ignore=shutil.ignore_patterns(".stepsmith"))
    return tmp_path / "invoice-matching"


@pytest_lsp.fixture(config=CONFIG, params=list(CLIENTS))
async def client(lsp_client: LanguageClient, request, wf):
    caps, info = CLIENTS[request.param]
    lsp_client.kind = request.param
    lsp_client.init_result = await lsp_client.initialize_session(T.InitializeParams(
        capabilities=caps(), client_info=info, root_uri=uri(wf.parent),
        workspace_folders=[T.WorkspaceFolder(uri=uri(wf.parent), name="ws")],
        initialization_options={"stepsmith": {"runOnSave": False}}))
    yield
    await lsp_client.shutdown_session()


async def test_capabilities_are_advertised(client):
    sc = client.init_result.capabilities
    if client.kind == "bare":  # no prepareSupport: RenameOptions may not be sent (LSP spec)
        assert sc.rename_provider is True
    else:
        assert sc.rename_provider == T.RenameOptions(prepare_provider=True)
    assert sc.document_highlight_provider and sc.workspace_symbol_provider
    assert sc.folding_range_provider and sc.selection_range_provider
    assert sc.document_link_provider == T.DocumentLinkOptions(resolve_provider=False)


def path_of(u: str) -> Path:
    return Path(unquote(urlparse(u).path))


def position(text: str, needle: str, offset: int) -> T.Position:
    i = text.index(needle) + offset
    return T.Position(text[:i].count("\n"), i - (text[:i].rfind("\n") + 1))


def apply(edit: T.WorkspaceEdit, texts: dict[Path, str]) -> None:
    """Apply a WorkspaceEdit to the disk (open buffers: `texts`), in order, like a client."""
    def edit_file(p: Path, edits):
        text = texts.get(p, p.read_text() if p.exists() else "")
        lines = text.split("\n")
        offsets = [0]
        for ln in lines:
            offsets.append(offsets[-1] + len(ln) + 1)
        for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
            a = offsets[e.range.start.line] + e.range.start.character  # ASCII text: UTF-16 = str
            b = offsets[e.range.end.line] + e.range.end.character
            text = text[:a] + e.new_text + text[b:]
        p.write_text(text)

    if edit.changes:
        for u, edits in edit.changes.items():
            edit_file(path_of(u), edits)
    for change in edit.document_changes or []:
        if isinstance(change, T.TextDocumentEdit):
            edit_file(path_of(change.text_document.uri), change.edits)
        elif isinstance(change, T.RenameFile):
            assert not path_of(change.new_uri).exists()
            os.rename(path_of(change.old_uri), path_of(change.new_uri))
        elif isinstance(change, T.DeleteFile):
            os.rmdir(path_of(change.uri))  # not recursive: the folder must be empty by now


def open_manifest(client, wf: Path) -> tuple[str, str]:
    text = (wf / "workflow.yaml").read_text()
    u = uri(wf / "workflow.yaml")
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        text_document=T.TextDocumentItem(uri=u, language_id="yaml", version=1, text=text)))
    return u, text


async def test_rename_a_step_id_then_the_workflow_checks_clean(client, wf):
    u, text = open_manifest(client, wf)
    cases = sorted(p.name for p in (wf / "fixtures/normalise").iterdir())
    at = position(text, "- id: normalise", 9)
    prep = await client.text_document_prepare_rename_async(T.PrepareRenameParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=at))
    assert prep == T.PrepareRenamePlaceholder(
        range=T.Range(T.Position(at.line, 8), T.Position(at.line, 17)), placeholder="normalise")
    edit = await client.text_document_rename_async(T.RenameParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=at, new_name="clean_up"))
    old, new = wf / "fixtures/normalise", wf / "fixtures/clean_up"
    if client.kind == "vscode":
        assert [type(c).__name__ for c in edit.document_changes] == ["TextDocumentEdit", "RenameFile"]
        assert edit.document_changes[0].text_document.version == 1
        assert (path_of(edit.document_changes[1].old_uri), path_of(edit.document_changes[1].new_uri)) == (old, new)
        assert client.messages == []
    elif client.kind == "neovim":
        kinds = [type(c).__name__ for c in edit.document_changes]
        assert kinds == ["TextDocumentEdit"] + ["RenameFile"] * len(cases) + ["DeleteFile"]
        assert new.is_dir() and list(new.iterdir()) == []  # made by the server for nvim 0.7
        assert client.messages == []
    else:
        assert edit.document_changes is None and list(edit.changes) == [u]
        assert [m.message for m in client.messages] == [(
            "stepsmith: This editor cannot rename folders: rename fixtures/normalise/ to "
            "fixtures/clean_up/ yourself, or its fixtures no longer belong to the step.")]
        os.rename(old, new)  # what the user is told to do
    apply(edit, {})
    expected = text.replace("id: normalise", "id: clean_up").replace(
        "steps.normalise.output", "steps.clean_up.output")
    assert (wf / "workflow.yaml").read_text() == expected
    assert sorted(p.name for p in new.iterdir()) == cases and not old.exists()
    check = check_workflow(wf / "workflow.yaml")
    assert [(p.name, q.code) for p, probs in check.problems.items() for q in probs] == []


async def test_a_refused_rename_is_a_request_failed_error_with_the_reason(client, wf):
    u, text = open_manifest(client, wf)
    with pytest.raises(JsonRpcException) as exc:
        await client.text_document_rename_async(T.RenameParams(
            text_document=T.TextDocumentIdentifier(uri=u), position=position(text, "- id: normalise", 9),
            new_name="match"))
    assert "'match' is already a step of workflow.yaml." in str(exc.value)
    assert (wf / "fixtures/normalise").is_dir() and not (wf / "fixtures/match/normalise").exists()


async def test_rename_an_effect_from_its_emit_in_a_step_file(client, wf):
    step = wf / "steps/bills.py"
    text = step.read_text()
    needle = 'effects.emit("draft_bill"'
    su = uri(step)
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        text_document=T.TextDocumentItem(uri=su, language_id="python", version=3, text=text)))
    edit = await client.text_document_rename_async(T.RenameParams(
        text_document=T.TextDocumentIdentifier(uri=su), position=position(text, needle, 16),
        new_name="bill_draft"))
    manifest = (wf / "workflow.yaml").read_text()
    assert len(re.findall(r"\bdraft_bill\b", manifest)) == 2  # declared, granted to the step
    apply(edit, {})
    assert step.read_text() == text.replace('emit("draft_bill"', 'emit("bill_draft"')
    assert (wf / "workflow.yaml").read_text() == re.sub(r"\bdraft_bill\b", "bill_draft", manifest)
    if client.kind != "bare":
        (doc_edit,) = [c for c in edit.document_changes if path_of(c.text_document.uri) == step]
        assert doc_edit.text_document.version == 3  # the open buffer's version
    check = check_workflow(wf / "workflow.yaml")
    assert [(p.name, q.code) for p, probs in check.problems.items() for q in probs] == []


async def test_prepare_rename_off_a_name_is_null(client, wf):
    u, text = open_manifest(client, wf)
    assert await client.text_document_prepare_rename_async(T.PrepareRenameParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=position(text, "version: 3", 2))) is None


async def test_a_symlinked_fixtures_folder_is_not_moved_and_the_user_is_told(client, wf):
    real = wf.parent / "elsewhere"
    (wf / "fixtures/normalise").rename(real)
    (wf / "fixtures/normalise").symlink_to(real)
    u, text = open_manifest(client, wf)
    edit = await client.text_document_rename_async(T.RenameParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=position(text, "- id: normalise", 9),
        new_name="clean_up"))
    changes = edit.document_changes or []
    assert not [c for c in changes if isinstance(c, (T.RenameFile, T.DeleteFile))]
    assert not (wf / "fixtures/clean_up").exists()  # nothing made, not even for Neovim 0.7
    assert [m.message for m in client.messages] == [
        "stepsmith: fixtures/normalise/ is a symbolic link: it was not renamed."]
