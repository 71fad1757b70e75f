"""Completion end to end (pytest-lsp, push and pull clients): every item carries a textEdit over
the exact range it replaces and a filterText; the text after applying it is what was meant;
ranges are UTF-16 (an emoji before the cursor counts two)."""

from __future__ import annotations

import pytest
from cursor_kit import cursor
from lsp_kit import close_doc, diagnostics, open_doc, uri
from lsprotocol import types as T

pytestmark = pytest.mark.asyncio(loop_scope="module")


def marked(text: str) -> tuple[str, T.Position]:
    """The text without its `|` and the UTF-16 position of the `|`."""
    plain, line, column = cursor(text)
    head = plain.split("\n")[line - 1][:column]
    return plain, T.Position(line - 1, len(head.encode("utf-16-le")) // 2)


async def complete(client, u: str, p: T.Position) -> list[T.CompletionItem]:
    res = await client.text_document_completion_async(T.CompletionParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=p))
    items = res.items if isinstance(res, T.CompletionList) else (res or [])
    for i in items:  # every item: an edit on the cursor's line ending at the cursor
        assert isinstance(i.text_edit, T.TextEdit), i
        r = i.text_edit.range
        assert (r.start.line, r.end.line, r.end.character) == (p.line, p.line, p.character), i
        assert i.filter_text is not None
    return items


def apply(text: str, item: T.CompletionItem) -> str:
    """Apply the edit as a client does: UTF-16 characters on the edit's line."""
    lines = text.split("\n")
    r = item.text_edit.range
    units = lines[r.start.line].encode("utf-16-le")
    a, b = r.start.character * 2, r.end.character * 2
    lines[r.start.line] = (units[:a].decode("utf-16-le") + item.text_edit.new_text
                           + units[b:].decode("utf-16-le"))
    return "\n".join(lines)


def by_label(items, label):
    (found,) = [i for i in items if i.label == label]
    return found


async def test_sources_prefix_is_not_doubled(client, workspace):
    path = workspace / "billing" / "workflow.yaml"
    text, p = marked(path.read_text().replace("items: steps.normalise.output\n    connections",
                                              "items: sources.inv|\n    connections"))
    u = open_doc(client, path, text)
    items = await complete(client, u, p)
    item = by_label(items, "sources.invoices")
    assert item.text_edit.new_text == "invoices" and item.filter_text == "invoices"
    assert item.text_edit.range.start.character == p.character - 3
    assert "      items: sources.invoices\n    connections: [ledger]" in apply(text, item)
    close_doc(client, u)
    # in `normalise`: not itself, nor `total` / `draft`, which read it (a cycle)
    text, p = marked(path.read_text().replace("invoices: sources.invoices", "invoices: |"))
    u = open_doc(client, path, text)
    assert [i.label for i in await complete(client, u, p)] == ["sources.invoices",
                                                               "steps.rates.output"]
    close_doc(client, u)


async def test_code_after_an_unquoted_colon_and_the_file_first(client, workspace):
    path = workspace / "billing" / "workflow.yaml"
    original = path.read_text()
    text, p = marked(original.replace("code: steps/rates.py:fx_rates", "code: steps/rates.py:|"))
    u = open_doc(client, path, text)
    items = await complete(client, u, p)
    assert [(i.label, i.text_edit.new_text) for i in items] == [
        ("steps/rates.py:fx_rates", "fx_rates")]
    assert apply(text, items[0]) == original
    close_doc(client, u)


async def test_flow_map_value_after_an_emoji_is_utf16(client, workspace):
    path = workspace / "billing" / "workflow.yaml"
    text, p = marked(path.read_text().replace(
        "invoices: {connection: ledger, description: Invoices received yesterday}",
        'invoices: {description: "🧾 in", connection: |}'))
    u = open_doc(client, path, text)
    items = await complete(client, u, p)
    head = '  invoices: {description: "🧾 in", connection: '
    assert p.character == len(head) + 1  # the emoji is two UTF-16 units
    assert [(i.label, i.text_edit.range.start.character) for i in items] == [
        ("ledger", len(head) + 1), ("ecb", len(head) + 1)]
    assert '{description: "🧾 in", connection: ledger}' in apply(text, items[0])
    close_doc(client, u)


async def test_new_step_snippet(client, workspace):
    path = workspace / "billing" / "workflow.yaml"
    text, p = marked(path.read_text() + "  - |\n")
    u = open_doc(client, path, text)
    items = await complete(client, u, p)
    snippet = by_label(items, "new step")
    if client.mode == "pull":  # VS Code's capabilities: snippets supported
        assert snippet.insert_text_format == T.InsertTextFormat.Snippet
        assert snippet.insert_text_mode == T.InsertTextMode.AsIs  # it carries its indent
        assert snippet.text_edit.new_text.startswith("id: ${1:new_step}\n    explanation: ")
    else:  # Neovim 0.7 says snippetSupport false: the same entry as plain text
        assert snippet.insert_text_format in (None, T.InsertTextFormat.PlainText)
        assert snippet.text_edit.new_text.startswith("id: new_step\n    explanation: what ")
        assert "$" not in snippet.text_edit.new_text
    plain = [i for i in items if i.label != "new step"]
    assert all(i.insert_text_format in (None, T.InsertTextFormat.PlainText) for i in plain)
    close_doc(client, u)


async def test_step_file_members_grants_and_effects(client, workspace):
    path = workspace / "billing" / "steps" / "draft.py"
    original = path.read_text()
    u = open_doc(client, path, original)
    await diagnostics(client, u)
    for edit, label, expected in (
            ('effects.emit("draft_bill"', 'effects.emit("dr|"', 'effects.emit("draft_bill"'),
            ("    for item in items:", '    key = connections["|"]\n    for item in items:',
             'key = connections["ledger"]'),
            ('"""Draft bills."""', '"""Draft bills."""\nimport decimal\nx = decimal.Dec|',
             "x = decimal.Decimal")):
        text, p = marked(original.replace(edit, label))
        u = open_doc(client, path, text)
        items = await complete(client, u, p)
        assert len(items) >= 1, label
        best = [i for i in items if apply(text, i).count(expected) == 1]
        assert best, (label, [(i.label, i.text_edit.new_text) for i in items])
        close_doc(client, u)


async def test_no_document_no_items(client, workspace):
    res = await client.text_document_completion_async(T.CompletionParams(
        text_document=T.TextDocumentIdentifier(uri=uri(workspace / "nowhere.py")),
        position=T.Position(0, 0)))
    assert res is None or list(getattr(res, "items", res)) == []
