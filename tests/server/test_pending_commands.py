"""Pending fixture changes through the language server (issue 11, item 8): editor runs write
them, `stepsmith.pending.*` commands list, accept and reject them over the same use case as
`stepsmith review`, with the same refusals; untrusted workspaces are refused."""

from __future__ import annotations

import json

import pytest
import pytest_lsp
from lsp_kit import CONFIG, command, copy_data, initialize, plain, push_capabilities, uri, wait_for

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient, tmp_path_factory):
    ws = copy_data(tmp_path_factory.mktemp("pending"))
    lsp_client.mode = "push"
    lsp_client.versions = {}
    lsp_client.ws = ws
    await initialize(lsp_client, ws, push_capabilities(),
                     {"stepsmith": {"runOnSave": False, "runOnType": False}})
    yield
    await lsp_client.shutdown_session()


def wrong(ws):
    return ws / "billing" / "fixtures" / "total" / "wrong.json"


async def test_editor_run_writes_a_pending_change_and_accept_applies_it(client):
    ws = client.ws
    manifest = uri(ws / "billing" / "workflow.yaml")
    before = wrong(ws).read_text()
    res = await command(client, "stepsmith.runStepFixtures", [manifest, "total"])
    by = {r["fixture"]: r for r in res["results"]}
    assert by["wrong"]["status"] == "failed"
    assert by["wrong"]["pendingUri"].endswith(".stepsmith/pending/total/wrong.json")
    assert "stdout" in by["wrong"]
    assert by["wrong"]["differences"] == [{"path": "output", "kind": "changed", "expected": "2.00",
                                           "actual": "1.00", "message": 'expected "2.00", got "1.00"'}]
    assert wrong(ws).read_text() == before  # untouched until accepted
    items = (await command(client, "stepsmith.pending.list", []))["items"]
    (item,) = [i for i in items if i.get("case") == "wrong"]
    assert item["step"] == "total" and item["fixtureUri"] == uri(wrong(ws))
    assert item["manifestUri"] == manifest
    assert item["oldText"] == before and json.loads(item["newText"])["expected"]["output"] == "1.00"
    assert item["differences"][0]["path"] == "expected.output"
    assert item["differences"][0]["expected"] == "2.00"
    notes = client.custom.setdefault("stepsmith/fixtureResults", [])
    n = len(notes)
    res = await command(client, "stepsmith.pending.accept", [item["pendingUri"]])
    assert res["summary"] == "accepted 1, rejected 0, skipped 0"
    assert json.loads(wrong(ws).read_text())["expected"]["output"] == "1.00"
    assert (await command(client, "stepsmith.pending.list", []))["items"] == []
    # the fixture was re-run: the Test Explorer hears it passes now
    await wait_for(lambda: any(r["fixture"] == "wrong" and r["status"] == "passed"
                               for note in notes[n:] for r in plain(note)["results"]))


async def test_accept_is_refused_when_the_fixture_changed_since(client):
    ws = client.ws
    f = wrong(ws)
    doc = json.loads(f.read_text())
    doc["expected"]["output"] = "9.00"
    f.write_text(json.dumps(doc))
    res = await command(client, "stepsmith.runFixture", [uri(f)])
    assert res["results"][0]["status"] == "failed"
    assert len((await command(client, "stepsmith.pending.list", []))["items"]) == 1
    edited = f.read_text().replace('"9.00"', '"8.00"')
    f.write_text(edited)
    res = await command(client, "stepsmith.pending.acceptAll", [])
    (d,) = res["decisions"]
    assert d["outcome"] == "refused" and "changed since the pending result" in d["message"]
    assert f.read_text() == edited
    res = await command(client, "stepsmith.pending.rejectAll", [])
    assert res["summary"] == "accepted 0, rejected 1, skipped 0"
    assert (await command(client, "stepsmith.pending.list", []))["items"] == []


async def test_corrupt_or_outside_pending_files_are_listed_as_problems(client):
    ws = client.ws
    folder = ws / "billing" / ".stepsmith" / "pending" / "total"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "broken.json").write_text("{not json")
    (folder / "escape.json").write_text(json.dumps({
        "stepsmith_pending": 1, "step": "total", "case": "escape",
        "fixture": "../../../outside.json", "fixture_sha256": None, "new": {}}))
    items = (await command(client, "stepsmith.pending.list", []))["items"]
    problems = {i["pendingUri"].rsplit("/", 1)[1]: i["problem"] for i in items}
    assert "corrupt pending file" in problems["broken.json"]
    assert "a pending change may only replace the fixture it is named for" in problems["escape.json"]
    res = await command(client, "stepsmith.pending.accept", [uri(folder / "escape.json")])
    assert res["decisions"][0]["outcome"] == "refused"
    assert not (ws.parent / "outside.json").exists()
    await command(client, "stepsmith.pending.rejectAll", [])
    assert (await command(client, "stepsmith.pending.list", []))["items"] == []
    with pytest.raises(Exception, match="no longer exist"):
        await command(client, "stepsmith.pending.accept", [uri(folder / "escape.json")])


async def test_a_new_case_is_listed_as_the_document_it_creates(client):
    from stepsmith.runner.app.record import RecordRequest, propose
    from stepsmith.runner.app.step import StepRequest

    ws = client.ws
    two = json.loads((ws / "billing" / "fixtures" / "total" / "two-items.json").read_text())
    change, _ = propose(RecordRequest(StepRequest(str(ws / "billing"), "total", two["inputs"],
                                                  at="2026-12-01T07:00:00+00:00"), "proposed"))
    items = (await command(client, "stepsmith.pending.list", []))["items"]
    (item,) = [i for i in items if i.get("case") == "proposed"]
    # the same typed listing as `stepsmith review --list`: no diff against a missing fixture
    assert item["isNew"] is True and item["differences"] == [] and item["oldText"] == ""
    assert json.loads(item["newText"]) == change.new
    await command(client, "stepsmith.pending.rejectAll", [])


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def untrusted(lsp_client: pytest_lsp.LanguageClient, tmp_path_factory):
    ws = copy_data(tmp_path_factory.mktemp("pending-untrusted"))
    lsp_client.ws = ws
    lsp_client.mode = "push"
    lsp_client.versions = {}
    await initialize(lsp_client, ws, push_capabilities(), {"stepsmith": {"trusted": False}})
    yield
    await lsp_client.shutdown_session()


async def test_untrusted_workspace_refuses_every_pending_command(untrusted):
    ws = untrusted.ws
    folder = ws / "billing" / ".stepsmith" / "pending" / "total"
    folder.mkdir(parents=True)
    (folder / "wrong.json").write_text("{}")
    for name, args in [("stepsmith.pending.list", []),
                       ("stepsmith.pending.accept", [uri(folder / "wrong.json")]),
                       ("stepsmith.pending.reject", [uri(folder / "wrong.json")]),
                       ("stepsmith.pending.acceptAll", []), ("stepsmith.pending.rejectAll", [])]:
        with pytest.raises(Exception, match="not trusted"):
            await command(untrusted, name, args)
    assert (folder / "wrong.json").read_text() == "{}"
