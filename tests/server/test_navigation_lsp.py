"""Navigation end to end (pytest-lsp, the real server; push and pull clients) on
tests/server/data: definition / references / documentHighlight on workflow names,
documentLink, workspace/symbol, foldingRange and selectionRange (the capabilities that
advertise them: test_rename_lsp.py)."""

from __future__ import annotations

import pytest
from lsp_kit import open_doc, uri
from lsprotocol import types as T

pytestmark = pytest.mark.asyncio(loop_scope="module")


def pos(text: str, needle: str, offset: int = 0) -> T.Position:
    i = text.index(needle) + offset
    return T.Position(text[:i].count("\n"), i - (text[:i].rfind("\n") + 1))


def rng(r: T.Range) -> tuple[int, int, int, int]:
    return (r.start.line, r.start.character, r.end.line, r.end.character)


def tdi(u: str) -> T.TextDocumentIdentifier:
    return T.TextDocumentIdentifier(uri=u)


async def test_definition_references_and_highlight_of_a_connection_alias(client, workspace):
    m = workspace / "billing" / "workflow.yaml"
    text = m.read_text()
    u = open_doc(client, m, text)
    at = pos(text, "connections: [ledger]", 15)
    (d,) = await client.text_document_definition_async(T.DefinitionParams(text_document=tdi(u), position=at))
    assert (d.uri, rng(d.range)) == (u, (7, 2, 7, 8))
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=tdi(u), position=at, context=T.ReferenceContext(include_declaration=True)))
    assert sorted((r.uri == u, rng(r.range)) for r in refs) == [
        (True, (7, 2, 7, 8)), (True, (10, 25, 10, 31)), (True, (12, 27, 12, 33)),
        (True, (36, 18, 36, 24))]
    hl = await client.text_document_document_highlight_async(T.DocumentHighlightParams(text_document=tdi(u), position=at))
    assert [(rng(h.range), h.kind) for h in hl] == [
        ((7, 2, 7, 8), T.DocumentHighlightKind.Write), ((10, 25, 10, 31), T.DocumentHighlightKind.Read),
        ((12, 27, 12, 33), T.DocumentHighlightKind.Read), ((36, 18, 36, 24), T.DocumentHighlightKind.Read)]


async def test_definition_of_an_effect_from_its_emit(client, workspace):
    step = workspace / "billing" / "steps" / "draft.py"
    text = step.read_text()
    u = open_doc(client, step, text)
    (d,) = await client.text_document_definition_async(T.DefinitionParams(
        text_document=tdi(u), position=pos(text, 'emit("draft_bill"', 8)))
    assert (d.uri, rng(d.range)) == (uri(workspace / "billing" / "workflow.yaml"), (12, 2, 12, 12))


async def test_document_links_go_to_the_function_line_and_fixture_folders(client, workspace):
    m = workspace / "billing" / "workflow.yaml"
    u = open_doc(client, m)
    links = await client.text_document_document_link_async(T.DocumentLinkParams(text_document=tdi(u)))
    steps = uri(workspace / "billing" / "steps")
    fixtures = uri(workspace / "billing" / "fixtures")
    text = m.read_text()

    def at(value):
        p = pos(text, value)
        return (p.line, p.character, p.line, p.character + len(value))

    def step_id(sid):  # the id after `  - id: `
        line = at(f"- id: {sid}\n")[0]
        return (line, 8, line, 8 + len(sid))

    assert [(rng(k.range), k.target) for k in links] == [
        (at("steps/normalise.py:normalise"), f"{steps}/normalise.py#L6"),  # 1-based def line
        (step_id("rates"), f"{fixtures}/rates"),
        (at("steps/rates.py:fx_rates"), f"{steps}/rates.py#L7"),
        (step_id("total"), f"{fixtures}/total"),
        (at("steps/total.py:total"), f"{steps}/total.py#L6"),
        (at("steps/draft.py:draft"), f"{steps}/draft.py#L4")]
    # a tooltip only for a client that said it shows them (VS Code does, Neovim 0.7 does not)
    tips = [k.tooltip for k in links]
    if client.mode == "pull":
        assert tips[:2] == ["Open normalise in steps/normalise.py", "The fixtures of rates (fixtures/rates/)"]
    else:
        assert tips == [None] * 6


async def test_workspace_symbols_list_every_step_of_every_workflow(client, workspace):
    syms = await client.workspace_symbol_async(T.WorkspaceSymbolParams(query=""))
    got = sorted((s.container_name, s.name) for s in syms)
    assert got == [("billing", "draft"), ("billing", "normalise"), ("billing", "rates"),
                   ("billing", "total"), ("chasing", "late"), ("chasing-weekly", "weekly")]
    (t,) = await client.workspace_symbol_async(T.WorkspaceSymbolParams(query="tot"))
    assert t.location.uri == uri(workspace / "billing" / "workflow.yaml")
    assert rng(t.location.range) == (26, 8, 26, 13)


async def test_folding_and_selection_ranges(client, workspace):
    step = workspace / "billing" / "steps" / "draft.py"
    text = step.read_text()
    u = open_doc(client, step, text)
    folds = await client.text_document_folding_range_async(T.FoldingRangeParams(text_document=tdi(u)))
    assert [(f.start_line, f.end_line, f.kind) for f in folds] == [(3, 6, None), (4, 5, None)]
    at = pos(text, '"invoice_id": item["invoice_id"]', 4)
    (sel,) = await client.text_document_selection_range_async(T.SelectionRangeParams(text_document=tdi(u), positions=[at]))
    chain = []
    while sel is not None:
        chain.append(rng(sel.range))
        sel = sel.parent
    line, src = at.line, text.split("\n")[at.line]
    key, brace = src.index('"invoice_id"'), src.index("{")
    assert chain == [(line, key + 1, line, key + 11),  # invoice_id
                     (line, key, line, key + 12),  # "invoice_id"
                     (line, brace, line, len(src) - 1),  # the payload dict
                     (line, 8, line, len(src)),  # effects.emit(...)
                     (line - 1, 4, line, len(src)),  # for
                     (3, 0, 6, 21),  # def draft
                     (0, 0, 7, 0)]  # the document
    m = workspace / "billing" / "workflow.yaml"
    mu = open_doc(client, m)
    folds = await client.text_document_folding_range_async(T.FoldingRangeParams(text_document=tdi(mu)))
    assert (14, 18, None) in [(f.start_line, f.end_line, f.kind) for f in folds]  # - id: normalise
    assert folds[0].start_line == 4 and folds[0].end_line == 5  # trigger:
