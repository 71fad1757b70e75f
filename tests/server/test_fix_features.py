"""Quick fixes, fix-all, inlay hints and signature help end to end (pytest-lsp, push and pull
clients): each fix is applied the way a client does and the server's diagnostics for the
edited text are re-read: the fix removes its problem and adds none."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from lsp_kit import change, close_doc, diagnostics, open_doc
from lsprotocol import types as T

pytestmark = pytest.mark.asyncio(loop_scope="module")


def pos(text: str, needle: str, offset: int = 0) -> T.Position:
    i = text.index(needle) + offset
    return T.Position(text.count("\n", 0, i), i - (text.rfind("\n", 0, i) + 1))


def apply(text: str, edits) -> str:
    """A client applying TextEdits (ASCII texts: characters are code points)."""
    lines = text.split("\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)

    def off(p):
        return len(text) if p.line >= len(starts) else min(starts[p.line] + p.character, len(text))

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:off(e.range.start)] + e.new_text + text[off(e.range.end):]
    return text


async def actions(client, u, diags, only=None, rng=None):
    return await client.text_document_code_action_async(T.CodeActionParams(
        text_document=T.TextDocumentIdentifier(uri=u), range=rng or diags[0].range,
        context=T.CodeActionContext(diagnostics=diags, only=only))) or []


def by_uri(action) -> dict:
    return {dc.text_document.uri: dc for dc in action.edit.document_changes}


async def test_manifest_quick_fix_applied_leaves_it_clean(client, workspace):
    path = workspace / "billing" / "workflow.yaml"
    good = path.read_text()
    text = good.replace("connections: [ecb]", "connections: [ebc]").replace(
        "invoices: sources.invoices", "invoices: sources.invoice")
    u = open_doc(client, path, text)
    diags = await diagnostics(client, u, predicate=lambda ds: len(ds) == 2)
    for code in ("SM101", "SM102"):
        d = next(d for d in diags if d.code == code)
        first = (await actions(client, u, [d]))[0]
        assert not first.is_preferred and first.title.startswith("Change to ")  # a guess
        dc = by_uri(first)[u]
        assert dc.text_document.version == client.versions[u]
        text = apply(text, dc.edits)
    assert text == good
    change(client, u, text)
    assert await diagnostics(client, u) == []
    close_doc(client, u)


async def test_declare_this_effect_edits_the_manifest(client, workspace):
    mpath, spath = workspace / "billing" / "workflow.yaml", workspace / "billing" / "steps" / "draft.py"
    mtext = mpath.read_text().replace(
        "  draft_bill: {connection: ledger, kind: create, key: invoice_id}\n",
        "  draft_bill: {connection: ledger, kind: create, key: invoice_id}\n"
        "  notify: {connection: ledger, kind: send, key: invoice_id}\n")
    mu = open_doc(client, mpath, mtext)
    assert await diagnostics(client, mu) == []
    stext = spath.read_text().replace("    return len(items)",
                                      '    effects.emit("notify", {"invoice_id": 1})\n    return len(items)')
    su = open_doc(client, spath, stext)
    diags = await diagnostics(client, su, predicate=lambda ds: any(d.code == "SS601" for d in ds))
    (d,) = [d for d in diags if d.code == "SS601"]
    acts = await actions(client, su, [d])
    (declare,) = [a for a in acts if a.title.startswith("Declare effect 'notify'")]
    (dc,) = declare.edit.document_changes
    assert dc.text_document.uri == mu and dc.text_document.version == client.versions[mu]
    mtext = apply(mtext, dc.edits)
    assert "    effects: [draft_bill, notify]\n" in mtext
    change(client, mu, mtext)
    assert await diagnostics(client, mu) == []
    assert await diagnostics(client, su, predicate=lambda ds: ds == []) == []
    close_doc(client, su)
    close_doc(client, mu)


async def test_fix_all_on_request_only(client, workspace):
    path = workspace / "billing" / "steps" / "scratch_fixall.py"
    text = ("import os, sys\nfrom typing import List\nimport statistics\n\n\ndef f(x: List[int]):\n"
            "    return statistics.NormalDist(0, 1).samples(3), os.sep\n")
    u = open_doc(client, path, text)
    diags = await diagnostics(client, u, predicate=lambda ds: len(ds) == 4)
    # the lightbulb (no `only`): quick fixes, no fix-all; preferred = safe; `os` is still used:
    # no fix at all (it would be left undefined)
    found = await actions(client, u, diags)
    assert all(a.kind == T.CodeActionKind.QuickFix for a in found)
    assert sorted((a.title, bool(a.is_preferred)) for a in found) == [
        ("Add seed=0 to samples() (choose your own seed)", False),
        ("Remove `sys` from the import", True),
        ("Remove the disallowed import and the annotations using List", True)]
    (fix_all,) = await actions(client, u, [], only=[T.CodeActionKind.SourceFixAll],
                               rng=T.Range(T.Position(0, 0), T.Position(0, 0)))
    assert fix_all.kind == "source.fixAll.stepsmith" and fix_all.diagnostics is None
    text = apply(text, by_uri(fix_all)[u].edits)
    assert text == ("import os\nimport statistics\n\n\ndef f(x):\n"
                    "    return statistics.NormalDist(0, 1).samples(3), os.sep\n")
    change(client, u, text)
    assert [d.code for d in await diagnostics(client, u, predicate=lambda ds: len(ds) == 2)] \
        == ["SS101", "SS501"]
    assert await actions(client, u, [], only=["source"], rng=T.Range(T.Position(0, 0), T.Position(0, 0))) == []
    close_doc(client, u)


async def test_inlay_hints_and_their_setting(client, workspace):
    path = workspace / "billing" / "workflow.yaml"
    text = path.read_text()
    u = open_doc(client, path, text)
    await diagnostics(client, u)

    async def hints():
        return await client.text_document_inlay_hint_async(T.InlayHintParams(
            text_document=T.TextDocumentIdentifier(uri=u),
            range=T.Range(T.Position(0, 0), T.Position(len(text.splitlines()), 0)))) or []

    got = [(h.position.line, h.position.character, h.label) for h in await hints()]
    cron = pos(text, '", timezone', 1)
    outs = [pos(text, "steps.normalise.output", len("steps.normalise.output"))]
    outs.append(pos(text[text.index("id: draft"):], "steps.normalise.output", len("steps.normalise.output")))
    outs[1] = T.Position(outs[1].line + text[:text.index("id: draft")].count("\n"), outs[1].character)
    assert got == [(cron.line, cron.character, "07:00 on weekdays, Europe/London"),
                   (outs[0].line, outs[0].character, "normalise()"),
                   (outs[1].line, outs[1].character, "normalise()")]
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(
        settings={"stepsmith": {"inlayHints": False}}))
    assert await hints() == []
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(
        settings={"stepsmith": {"inlayHints": True}}))
    assert len(await hints()) == 3
    close_doc(client, u)


async def test_signature_help(client, workspace):
    path = workspace / "billing" / "steps" / "scratch_sig.py"
    text = ("import decimal\n\n\ndef total(items):\n    return 0\n\n\n"
            "def again(items):\n    x = decimal.Decimal('1', \n    return total(\n")
    u = open_doc(client, path, text)

    async def sig(p):
        return await client.text_document_signature_help_async(T.SignatureHelpParams(
            text_document=T.TextDocumentIdentifier(uri=u), position=p))

    h = await sig(pos(text, "'1', ", 5))
    s = h.signatures[0]
    assert s.label == "Decimal(value='0', context=None)" and h.active_parameter == 1
    a, b = s.parameters[1].label
    assert s.label[a:b] == "context=None"
    h = await sig(pos(text, "total(\n", 6))
    assert h.signatures[0].label == "total(items)" and h.active_parameter == 0
    assert await sig(pos(text, "return 0", 7)) is None
    close_doc(client, u)


async def test_capabilities_are_advertised(tmp_path):
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    data = b"".join(f"Content-Length: {len(json.dumps(m).encode())}\r\n\r\n{json.dumps(m)}".encode()
                    for m in msgs)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "stepsmith.server", cwd=tmp_path, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    stdout, _ = await asyncio.wait_for(proc.communicate(data), 60)
    body = stdout.decode()
    caps = json.loads(body.split("\r\n\r\n", 1)[1].split("Content-Length")[0])["result"]["capabilities"]
    assert caps["codeActionProvider"]["codeActionKinds"] == ["quickfix", "source.fixAll.stepsmith"]
    assert caps["inlayHintProvider"] == {"resolveProvider": False}
    assert caps["signatureHelpProvider"]["triggerCharacters"] == ["(", ","]



