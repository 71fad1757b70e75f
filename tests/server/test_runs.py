"""Running fixtures from the editor: commands, progress, result diagnostics, code lens,
run-on-save / run-on-type, and the sandbox-unavailable path. Push and pull clients."""

from __future__ import annotations

import asyncio
import json

import pytest
import pytest_lsp
from lsp_kit import (
    CONFIG,
    HOOKED,
    change,
    close_doc,
    command,
    copy_data,
    diagnostics,
    initialize,
    open_doc,
    plain,
    push_capabilities,
    uri,
    wait_for,
)
from lsprotocol import types as T

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def lens_titles(client, u):
    lenses = await client.text_document_code_lens_async(T.CodeLensParams(
        text_document=T.TextDocumentIdentifier(uri=u)))
    return [lens.command.title for lens in lenses or []]


async def test_run_step_fixtures_command(client, workspace):
    manifest = workspace / "billing" / "workflow.yaml"
    step = workspace / "billing" / "steps" / "total.py"
    su = open_doc(client, step)
    await diagnostics(client, su)
    tokens_before = set(client.progress_reports)
    res = await command(client, "stepsmith.runStepFixtures", [uri(manifest), "total"])
    by = {r["fixture"]: r for r in res["results"]}
    assert set(by) == {"empty", "two-items", "wrong"}
    assert by["empty"]["status"] == "passed" and by["two-items"]["status"] == "passed"
    assert by["wrong"]["status"] == "failed" and "2.00" in by["wrong"]["diff"]
    assert by["wrong"]["uri"].endswith("fixtures/total/wrong.json")
    # $/progress work-done progress: begin ... report ... end
    new = [t for t in client.progress_reports if t not in tokens_before]
    assert new
    kinds = [type(v).__name__ for v in client.progress_reports[new[-1]]]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"
    assert "WorkDoneProgressReport" in kinds
    # results as diagnostics: on the step's def line ...
    diags = await diagnostics(client, su, predicate=lambda ds: any(d.source == "stepsmith-fixtures" for d in ds))
    d = next(d for d in diags if d.source == "stepsmith-fixtures")
    assert d.range.start.line == 5 and "wrong" in d.message
    # ... and on the fixture file (always pushed)
    wrong_uri = uri(workspace / "billing" / "fixtures" / "total" / "wrong.json")
    await wait_for(lambda: client.diagnostics.get(wrong_uri))
    assert "failed" in client.diagnostics[wrong_uri][0].message
    # the code lens shows the outcome
    assert await lens_titles(client, su) == ["▶ Run 3 fixtures", "✗ 1 failed"]
    # the notification for test explorers
    note = client.custom["stepsmith/fixtureResults"][-1]
    assert plain(note)["stepId"] == "total"


def _expected_line(text: str) -> int:
    return next(i for i, line in enumerate(text.split("\n")) if '"expected"' in line)


async def test_fixture_results_on_an_open_fixture_file_carry_its_version(client, workspace):
    fx = workspace / "billing" / "fixtures" / "total" / "wrong.json"
    fu = uri(fx)
    disk = fx.read_text()
    texts = {1: disk}
    open_doc(client, fx, disk)
    texts[change(client, fu, (0, 1, 0, 1, "\n\n"))] = disk[:1] + "\n\n" + disk[1:]  # unsaved: moves down
    running = asyncio.ensure_future(command(client, "stepsmith.runFixture", [fu]))
    await asyncio.sleep(0)
    # an edit while the fixture runs: the result must be published for this newer text
    v3 = change(client, fu, (1, 0, 2, 0, ""))
    texts[v3] = disk[:1] + "\n" + disk[1:]
    res = await running
    assert [(r["fixture"], r["status"]) for r in res["results"]] == [("wrong", "failed")]
    await wait_for(lambda: any(v == v3 and ds for v, ds in client.published.get(fu, [])))
    # another edit: republished for the new version, following the text
    v4 = change(client, fu, (1, 0, 2, 0, ""))
    texts[v4] = disk
    await wait_for(lambda: client.published[fu][-1][0] == v4)
    pubs = client.published[fu]
    assert [v for v, _ in pubs] == sorted(v for v, _ in pubs)  # never an older version after a newer
    for version, diags in pubs:
        assert version in texts, "fixture results on an open file carry its version"
        for d in diags:  # positioned on the text of the version they carry
            assert d.source == "stepsmith-fixtures" and "wrong failed" in d.message
            assert d.range.start.line == _expected_line(texts[version])
    assert pubs[-1][1] and pubs[-1][1][0].range.start.line == _expected_line(disk)
    # closed: cleared for the buffer, then back to the file on disk (no version)
    n = len(pubs)
    close_doc(client, fu)
    await wait_for(lambda: len(client.published[fu]) >= n + 2)
    (v_clear, cleared), (v_disk, on_disk) = client.published[fu][n:n + 2]
    assert v_clear is None and list(cleared) == []
    assert v_disk is None and on_disk[0].range.start.line == _expected_line(disk)


async def test_run_one_fixture_and_record(client, workspace):
    fx = workspace / "billing" / "fixtures" / "total" / "two-items.json"
    res = await command(client, "stepsmith.runFixture", [uri(fx)])
    assert [(r["fixture"], r["status"]) for r in res["results"]] == [("two-items", "passed")]
    manifest = workspace / "billing" / "workflow.yaml"
    name = f"recorded-{client.mode}"
    res = await command(client, "stepsmith.recordFixture",
                        [uri(manifest), "total", name, json.dumps({"items": [{"amount": "4.10"}]}),
                         "2026-12-01T07:00:00+00:00"])
    r = res["results"][0]
    assert r["status"] == "recorded", r
    saved = json.loads((workspace / "billing" / "fixtures" / "total" / f"{name}.json").read_text())
    assert saved["expected"]["output"] == "4.10"
    # recording refuses forbidden field names and bad names
    res = await command(client, "stepsmith.recordFixture",
                        [uri(manifest), "total", "leaky", json.dumps({"items": [{"api_key": "x"}]}), None])
    assert res["results"][0]["status"] == "error"
    res = await command(client, "stepsmith.recordFixture", [uri(manifest), "total", "Bad Name", "{}", None])
    assert res["results"][0]["status"] == "error"
    (workspace / "billing" / "fixtures" / "total" / f"{name}.json").unlink()


async def test_a_result_carries_the_range_of_its_fixtures_own_expected_key(client, workspace):
    """Issue 21: the reply says where the fixture's result goes (its top-level `"expected"`
    key, in the negotiated encoding), so no client searches the text; an input named
    `expected` before it, on the same line and after an astral character, is not it."""
    fx = workspace / "billing" / "fixtures" / "total" / f"nested-{client.mode}.json"
    text = ('{"inputs": {"items": [{"amount": "1.00", "expected": "\U0001d11e"}]}, '
            '"expected": {"output": "9.00"}}\n')
    fx.write_text(text, encoding="utf-8")
    try:
        res = await command(client, "stepsmith.runFixture", [uri(fx)])
    finally:
        fx.unlink()
    [r] = res["results"]
    assert r["status"] == "failed"
    col = text.index('"expected": {')  # code points; one astral character before it
    col16 = len(text[:col].encode("utf-16-le")) // 2
    assert col16 == col + 1
    assert r["target"] == {"start": {"line": 0, "character": col16},
                           "end": {"line": 0, "character": col16 + len('"expected"')}}
    missing = workspace / "billing" / "fixtures" / "total" / f"no-expected-{client.mode}.json"
    missing.write_text('{"inputs": {"items": []}}\n')
    try:
        res = await command(client, "stepsmith.runFixture", [uri(missing)])
    finally:
        missing.unlink()
    [r] = res["results"]
    assert r["status"] == "error"  # the fixture does not load: its result goes at its start
    assert r["target"] == {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}


async def test_run_on_save_and_on_type(client, workspace):
    step = workspace / "billing" / "steps" / "total.py"
    su = open_doc(client, step)
    await diagnostics(client, su)
    notes = client.custom.setdefault("stepsmith/fixtureResults", [])
    # runOnSave (enabled through didChangeConfiguration, no restart)
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(
        settings={"stepsmith": {"runOnSave": True}}))
    n = len(notes)
    client.text_document_did_save(T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=su)))
    await wait_for(lambda: len(notes) > n)
    assert {r["fixture"] for r in plain(notes[-1])["results"]} >= {"empty", "two-items", "wrong"}
    # runOnType: the unsaved buffer is what runs; a newer edit supersedes the older run
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(
        settings={"stepsmith": {"runOnType": True, "runOnTypeDelayMs": 50}}))
    text = step.read_text()
    line = text.split("\n").index('    return str(sum((Decimal(i["amount"]) for i in items), Decimal("0")))')
    n = len(notes)
    change(client, su, (line, 11, line, 11, "'X' + "))      # intermediate: every fixture fails
    change(client, su, (line, 11, line, 17, ""))            # back to the original
    change(client, su, (line, 4, line, 10, "return '2.00' if items else '0' or"))  # 'wrong' now passes
    await wait_for(lambda: len(notes) > n)
    await asyncio.sleep(0.5)  # let any superseded run finish: it must publish nothing
    last = {r["fixture"]: r["status"] for r in plain(notes[-1])["results"]}
    assert last["wrong"] == "passed" and last["empty"] == "passed" and last["two-items"] == "failed"
    for note in notes[n:]:  # never the intermediate buffer's results
        assert {r["fixture"]: r["status"] for r in plain(note)["results"]} == last
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(
        settings={"stepsmith": {"runOnType": False, "runOnSave": False}}))
    close_doc(client, su)


async def test_lens_command_runs_the_unsaved_buffer(client, workspace):
    step = workspace / "billing" / "steps" / "total.py"
    su = open_doc(client, step)
    await diagnostics(client, su)
    text = step.read_text()
    line = text.split("\n").index('    return str(sum((Decimal(i["amount"]) for i in items), Decimal("0")))')
    change(client, su, (line, 4, line, 10, "return '2.00' if items else '0' or"))  # not saved
    lenses = await client.text_document_code_lens_async(T.CodeLensParams(
        text_document=T.TextDocumentIdentifier(uri=su)))
    cmd = lenses[0].command
    res = await command(client, cmd.command, cmd.arguments)
    by = {r["fixture"]: r["status"] for r in res["results"]}
    assert by == {"empty": "passed", "two-items": "failed", "wrong": "passed"}  # the buffer ran
    assert not any(r.get("pendingUri") for r in res["results"])  # unsaved code: no pending change
    assert step.read_text() == text
    close_doc(client, su)


@pytest_lsp.fixture(config=pytest_lsp.ClientServerConfig(
    server_command=[*HOOKED, "--no-sandbox", "bwrap not found: apt-get install bubblewrap"],
    client_factory=CONFIG.client_factory),
    scope="module")
async def nosandbox(lsp_client: pytest_lsp.LanguageClient, tmp_path_factory):
    ws = copy_data(tmp_path_factory.mktemp("nosb"))
    lsp_client.mode = "push"
    lsp_client.versions = {}
    lsp_client.ws = ws
    await initialize(lsp_client, ws, push_capabilities())
    yield
    await lsp_client.shutdown_session()


async def test_without_sandbox_diagnostics_work_and_running_says_why(nosandbox):
    client = nosandbox
    ws = client.ws
    u = open_doc(client, ws / "billing" / "steps" / "scratch.py", "import os\n")
    assert [d.code for d in await diagnostics(client, u)] == ["SS101"]
    st = plain(await client.protocol.send_request_async("stepsmith/status", {}))
    assert st["sandboxAvailable"] is False and "apt-get install bubblewrap" in st["reason"]
    res = await command(client, "stepsmith.runStepFixtures", [uri(ws / "billing" / "workflow.yaml"), "total"])
    assert {r["status"] for r in res["results"]} == {"error"}
    assert all("bubblewrap" in r["message"] for r in res["results"])
    await command(client, "stepsmith.runStepFixtures", [uri(ws / "billing" / "workflow.yaml"), "total"])
    await wait_for(lambda: client.messages)
    shown = [m for m in client.messages if "unavailable" in m.message]
    assert len(shown) == 1  # said once, clearly
    # and diagnostics still flow after that
    v = change(client, u, (0, 7, 0, 9, "json"))
    assert await diagnostics(client, u, v) == []


async def test_run_on_save_is_on_by_default(nosandbox):
    client = nosandbox
    ws = client.ws
    notes = client.custom.setdefault("stepsmith/fixtureResults", [])
    u = open_doc(client, ws / "billing" / "steps" / "total.py")
    await diagnostics(client, u)
    n = len(notes)
    client.text_document_did_save(T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=u)))
    await wait_for(lambda: len(notes) > n)
    assert plain(notes[-1])["stepId"] == "total"


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def untrusted(lsp_client: pytest_lsp.LanguageClient, tmp_path_factory):
    ws = copy_data(tmp_path_factory.mktemp("untrusted"))
    lsp_client.mode = "push"
    lsp_client.versions = {}
    lsp_client.ws = ws
    # the client asks for run-on-save too: untrusted must win
    await initialize(lsp_client, ws, push_capabilities(),
                     {"stepsmith": {"trusted": False, "runOnSave": True, "runOnType": True}})
    yield
    await lsp_client.shutdown_session()


async def test_untrusted_workspace_gets_diagnostics_but_runs_nothing(untrusted):
    client = untrusted
    ws = client.ws
    manifest = uri(ws / "billing" / "workflow.yaml")
    u = open_doc(client, ws / "billing" / "steps" / "scratch.py", "import os\n")
    assert [d.code for d in await diagnostics(client, u)] == ["SS101"]
    for name, args in [("stepsmith.runStepFixtures", [manifest, "total"]),
                       ("stepsmith.runFixture", [uri(ws / "billing" / "fixtures" / "total" / "empty.json")]),
                       ("stepsmith.recordFixture", [manifest, "total", "new-case", "{}", None])]:
        with pytest.raises(Exception, match="not trusted"):
            await command(client, name, args)
    assert not (ws / "billing" / "fixtures" / "total" / "new-case.json").exists()
    notes = client.custom.setdefault("stepsmith/fixtureResults", [])
    step = open_doc(client, ws / "billing" / "steps" / "total.py")
    await diagnostics(client, step)
    client.text_document_did_save(T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=step)))
    # a later configuration change cannot switch running back on while untrusted
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(
        settings={"stepsmith": {"runOnSave": True}}))
    client.text_document_did_save(T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=step)))
    v = change(client, step, (0, 0, 0, 0, "# edited\n"))
    await diagnostics(client, step, v)
    await asyncio.sleep(6.0)  # a run-on-save would have published results by now
    assert notes == []


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def broken_elsewhere(lsp_client: pytest_lsp.LanguageClient, tmp_path_factory):
    ws = copy_data(tmp_path_factory.mktemp("elsewhere"))
    rates = ws / "billing" / "steps" / "rates.py"
    rates.write_text("import os\n" + rates.read_text())  # step `rates` only
    lsp_client.mode = "push"
    lsp_client.versions = {}
    lsp_client.ws = ws
    await initialize(lsp_client, ws, push_capabilities(), {"stepsmith": {"runOnSave": False}})
    yield
    await lsp_client.shutdown_session()


async def test_one_cause_one_report_in_the_editor(broken_elsewhere):
    """A disallowed import in steps/rates.py made every fixture of the workflow an error, and
    put one diagnostic on each fixture file. Step `total`, whose code and entry are clean,
    runs; `rates`' fixture is reported blocked by the import (code and position), and the
    one diagnostic of the cause is the import's own in rates.py."""
    client = broken_elsewhere
    ws = client.ws
    manifest = uri(ws / "billing" / "workflow.yaml")
    res = await command(client, "stepsmith.runStepFixtures", [manifest, "total"])
    by = {r["fixture"]: r["status"] for r in res["results"]}
    assert by == {"empty": "passed", "two-items": "passed", "wrong": "failed"}
    res = await command(client, "stepsmith.runStepFixtures", [manifest, "rates"])
    (gbp,) = res["results"]
    assert gbp["status"] == "error"
    assert "blocked by" in gbp["message"] and "steps/rates.py:1:8: SS101" in gbp["message"]
    gbp_uri = uri(ws / "billing" / "fixtures" / "rates" / "gbp.json")
    wrong_uri = uri(ws / "billing" / "fixtures" / "total" / "wrong.json")
    await wait_for(lambda: client.diagnostics.get(wrong_uri))  # published after both runs
    assert not client.diagnostics.get(gbp_uri)  # no second report of the import
    rates = open_doc(client, ws / "billing" / "steps" / "rates.py")
    diags = await diagnostics(client, rates)
    assert [(d.code, d.source) for d in diags] == [("SS101", "stepsmith")]
