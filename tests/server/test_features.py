"""Hover, completion, navigation, symbols, code actions, custom requests — push and pull."""

from __future__ import annotations

import pytest
from lsp_kit import change, close_doc, diagnostics, open_doc, plain, uri
from lsprotocol import types as T

pytestmark = pytest.mark.asyncio(loop_scope="module")

SENTENCE = "This is what each step is permitted to reach, not a review of what its code does."


def pos(text: str, needle: str, offset: int = 0) -> T.Position:
    """UTF-16 position of `needle` in `text` (all test texts here are ASCII)."""
    i = text.index(needle) + offset
    line = text.count("\n", 0, i)
    col = i - (text.rfind("\n", 0, i) + 1)
    return T.Position(line, col)


async def hover(client, u, p):
    return await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=p))


async def test_hover_reach_card_on_manifest_step(client, workspace):
    path = workspace / "billing" / "workflow.yaml"
    text = path.read_text()
    u = open_doc(client, path, text)
    assert await diagnostics(client, u) == []
    h = await hover(client, u, pos(text, "id: rates", 5))
    v = h.contents.value
    assert "`rates`" in v and SENTENCE in v
    assert "public_egress" in v and "`ecb`" in v
    assert "Fetch today's exchange rates." in v
    # on the network value and the connections key too
    assert SENTENCE in (await hover(client, u, pos(text, "network: public_egress", 12))).contents.value
    assert SENTENCE in (await hover(client, u, pos(text, "connections: [ecb]", 2))).contents.value
    # a step that reaches nothing says so
    h = await hover(client, u, pos(text, "id: total", 5))
    assert "Reaches nothing" in h.contents.value and SENTENCE in h.contents.value
    # schema description on a key
    h = await hover(client, u, pos(text, "trigger:", 1))
    assert "exactly one of schedule, event or manual" in h.contents.value
    h = await hover(client, u, pos(text, "python:", 1))
    assert "Python version" in h.contents.value


async def test_hover_reach_card_on_def_line(client, workspace):
    path = workspace / "billing" / "steps" / "rates.py"
    text = path.read_text()
    u = open_doc(client, path, text)
    await diagnostics(client, u)
    h = await hover(client, u, pos(text, "def fx_rates", 5))
    v = h.contents.value
    assert "`rates`" in v and SENTENCE in v and "public_egress" in v and "`ecb`" in v


async def test_hover_rule_docs_on_violation_and_pinned_clock(client, workspace):
    path = workspace / "billing" / "steps" / "scratch_hover.py"
    text = "import datetime\n\n\ndef f(x):\n    t = datetime.datetime.now()\n    return eval(x)\n"
    u = open_doc(client, path, text)
    await diagnostics(client, u)
    h = await hover(client, u, pos(text, "eval", 1))
    v = h.contents.value
    assert "SS301" in v and "Why:" in v
    h = await hover(client, u, pos(text, "now()", 1))
    assert "pinned" in h.contents.value.lower() and "evaluation time" in h.contents.value
    close_doc(client, u)


async def test_completion_manifest_and_step(client, workspace):
    path = workspace / "billing" / "scratch2.workflow.yaml"
    text = (
        "workflow: scratch2\nversion: 1\npython: \"3.11\"\ntrigger: {manual: {}}\n"
        "connections:\n  xero: {}\nsources:\n  invoices: {connection: xero}\n"
        "steps:\n  - id: a\n    explanation: x\n    code: steps/total.py:total\n    network: \n"
        "    connections: \n"
    )
    u = open_doc(client, path, text)
    await diagnostics(client, u)

    async def labels(p):
        res = await client.text_document_completion_async(T.CompletionParams(
            text_document=T.TextDocumentIdentifier(uri=u), position=p))
        items = res.items if isinstance(res, T.CompletionList) else (res or [])
        return {i.label for i in items}

    assert {"none", "public_egress"} <= await labels(pos(text, "network: ", 9))
    assert "xero" in await labels(pos(text, "connections: \n", 13))
    assert "steps/total.py:total" in await labels(pos(text, "code: steps/total.py:", 21))
    assert "steps/total.py" in await labels(pos(text, "code: ", 6))
    # keys of a step at a new key position
    change(client, u, (14, 0, 14, 0, "    "))
    keys = await labels(T.Position(14, 4))
    assert {"inputs", "effects"} <= keys and "id" not in keys
    close_doc(client, u)
    # step file: allowed modules after import
    spath = workspace / "billing" / "steps" / "scratch_comp.py"
    su = open_doc(client, spath, "import \n")
    res = await client.text_document_completion_async(T.CompletionParams(
        text_document=T.TextDocumentIdentifier(uri=su), position=T.Position(0, 7)))
    got = {i.label for i in res.items}
    assert {"json", "math", "decimal", "datetime", "statistics", "re"} <= got and "os" not in got
    close_doc(client, su)


async def test_definition_and_references(client, workspace):
    mpath = workspace / "billing" / "workflow.yaml"
    mtext = mpath.read_text()
    mu = open_doc(client, mpath, mtext)
    res = await client.text_document_definition_async(T.DefinitionParams(
        text_document=T.TextDocumentIdentifier(uri=mu), position=pos(mtext, "steps/total.py:total", 16)))
    loc = res[0] if isinstance(res, list) else res
    assert loc.uri.endswith("steps/total.py")
    spath = workspace / "billing" / "steps" / "total.py"
    stext = spath.read_text()
    assert loc.range.start.line == stext[: stext.index("def total")].count("\n")
    # from the function back to its manifest entry
    su = open_doc(client, spath, stext)
    res = await client.text_document_definition_async(T.DefinitionParams(
        text_document=T.TextDocumentIdentifier(uri=su), position=pos(stext, "def total", 5)))
    assert res and res[0].uri == mu and res[0].range.start.line == mtext[: mtext.index("id: total")].count("\n")
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=T.TextDocumentIdentifier(uri=su), position=pos(stext, "def total", 5),
        context=T.ReferenceContext(include_declaration=True)))
    assert {r.uri for r in refs} == {su, mu}


async def test_document_symbols(client, workspace):
    mpath = workspace / "billing" / "workflow.yaml"
    mu = open_doc(client, mpath)
    syms = await client.text_document_document_symbol_async(T.DocumentSymbolParams(
        text_document=T.TextDocumentIdentifier(uri=mu)))
    by = {s.name: s for s in syms}
    assert [c.name for c in by["steps"].children] == ["normalise", "rates", "total", "draft"]
    assert {c.name for c in by["connections"].children} == {"ledger", "ecb"}
    assert {c.name for c in by["sources"].children} == {"invoices"}
    assert [c.name for c in by["effects"].children] == ["draft_bill"]
    spath = workspace / "chasing" / "steps" / "late.py"
    su = open_doc(client, spath)
    syms = await client.text_document_document_symbol_async(T.DocumentSymbolParams(
        text_document=T.TextDocumentIdentifier(uri=su)))
    assert [s.name for s in syms if s.kind == T.SymbolKind.Function] == ["late", "count_late"]


async def _actions(client, u, diags):
    return await client.text_document_code_action_async(T.CodeActionParams(
        text_document=T.TextDocumentIdentifier(uri=u), range=diags[0].range,
        context=T.CodeActionContext(diagnostics=diags))) or []


async def test_code_actions_quick_fixes_and_no_suppress(client, workspace):
    path = workspace / "billing" / "steps" / "scratch_fix.py"
    text = ("import os\nimport statistics\n\n\ndef f(x):\n"
            "    return statistics.NormalDist(0, 1).samples(3)\n\n\ndef g(x):\n    return eval(x)\n")
    u = open_doc(client, path, text)
    diags = await diagnostics(client, u)
    by = {d.code: d for d in diags}
    acts = await _actions(client, u, [by["SS101"]])
    assert [a.title for a in acts] == ["Remove the disallowed import"]
    edit = acts[0].edit.document_changes[0].edits[0]
    assert (edit.range.start.line, edit.range.end.line, edit.new_text) == (0, 1, "")
    acts = await _actions(client, u, [by["SS501"]])
    assert len(acts) == 1 and acts[0].edit.document_changes[0].edits[0].new_text == ", seed=0"
    # eval has no unambiguous fix, and no security rule ever gets a suppress action
    assert await _actions(client, u, [by["SS301"]]) == []
    for d in diags:
        for a in await _actions(client, u, [d]):
            t = a.title.lower()
            assert "suppress" not in t and "ignore" not in t and "noqa" not in t and "disable" not in t
    close_doc(client, u)


async def test_code_action_explanation_placeholder(client, workspace):
    path = workspace / "billing" / "scratch3.workflow.yaml"
    text = ("workflow: scratch3\nversion: 1\npython: \"3.11\"\ntrigger: {manual: {}}\n"
            "steps:\n  - id: a\n    code: steps/match.py:match\n")
    u = open_doc(client, path, text)
    diags = await diagnostics(client, u, predicate=lambda ds: any("explanation" in d.message for d in ds))
    d = next(d for d in diags if "explanation" in d.message)
    acts = await _actions(client, u, [d])
    assert len(acts) == 1
    e = acts[0].edit.document_changes[0].edits[0]
    assert e.new_text.startswith('    explanation: "TODO') and e.range.start.line == 6  # quoted: valid YAML
    close_doc(client, u)


async def request(client, method, params):
    return plain(await client.protocol.send_request_async(method, params))


async def test_custom_requests(client, workspace):
    res = await request(client, "stepsmith/reach", {})
    wfs = {w["workflow"]: w for w in res["workflows"]}
    assert {"billing", "chasing", "chasing-weekly"} <= set(wfs)
    assert res["sentence"] == SENTENCE
    b = wfs["billing"]
    steps = {s["step_id"]: s for s in b["steps"]}
    assert list(steps) == ["normalise", "rates", "total", "draft"]
    assert steps["rates"]["network"] == "public_egress" and steps["rates"]["connections"] == ["ecb"]
    assert steps["normalise"]["sources"] == ["invoices"]
    assert steps["draft"]["effects"] == ["draft_bill"] and steps["draft"]["connections"] == ["ledger"]
    assert steps["draft"]["effect_targets"] == {"draft_bill": "create via ledger"}
    assert steps["total"]["reaches_nothing"] is True and steps["rates"]["reaches_nothing"] is False
    assert steps["total"]["function"] == "total" and steps["total"]["explanation"].startswith("Add up")
    assert steps["total"]["codeLocation"]["uri"].endswith("steps/total.py")
    assert steps["total"]["location"]["uri"].endswith("billing/workflow.yaml")
    # scoped to one file: the step file used by both chasing workflows
    one = await request(client, "stepsmith/reach", {"uri": uri(workspace / "chasing" / "steps" / "late.py")})
    assert sorted(w["workflow"] for w in one["workflows"]) == ["chasing", "chasing-weekly"]
    fx = await request(client, "stepsmith/fixtures", {})
    b = next(w for w in fx["workflows"] if w["workflow"] == "billing")
    total = next(s for s in b["steps"] if s["id"] == "total")
    assert [f["name"] for f in total["fixtures"]] == ["empty", "two-items", "wrong"]
    assert total["uri"].endswith("steps/total.py") and total["range"]["start"]["line"] == 5
    st = await request(client, "stepsmith/status", {})
    assert set(st) == {"sandboxAvailable", "reason", "version"}
    rule = await request(client, "stepsmith/rule", {"code": "SS101"})
    assert rule["code"] == "SS101" and rule["security"] is True
    python = await request(client, "stepsmith/python",
                           {"uri": uri(workspace / "billing" / "workflow.yaml")})
    assert python["manifestUri"].endswith("billing/workflow.yaml")
    # every answer is its declared shape (server/protocol.py: no key beyond it, none missing)
    from stepsmith.server import protocol

    for shape, answer in ((protocol.ReachResponse, res), (protocol.ReachResponse, one),
                          (protocol.FixturesResponse, fx), (protocol.StatusResponse, st),
                          (protocol.RuleDoc, rule), (protocol.PythonResponse, python)):
        shape.model_validate(answer)


async def test_code_lens_counts_fixtures(client, workspace):
    path = workspace / "billing" / "steps" / "total.py"
    u = open_doc(client, path)
    await diagnostics(client, u)
    lenses = await client.text_document_code_lens_async(T.CodeLensParams(
        text_document=T.TextDocumentIdentifier(uri=u)))
    assert [lens.command.title for lens in lenses] == ["▶ Run 3 fixtures"]
    assert lenses[0].command.command == "stepsmith.runStepFixtures"
    assert lenses[0].command.arguments[1] == "total"
    # one file, two workflows in one folder: a lens per step
    u2 = open_doc(client, workspace / "chasing" / "steps" / "late.py")
    await diagnostics(client, u2)
    lenses = await client.text_document_code_lens_async(T.CodeLensParams(
        text_document=T.TextDocumentIdentifier(uri=u2)))
    assert sorted(lens.command.title for lens in lenses) == ["▶ Run 0 fixtures (weekly)", "▶ Run 1 fixture"]


async def test_handler_exception_is_logged_and_server_keeps_serving(client, workspace):
    # a crashing handler: the request gets a JSON-RPC error naming the failure (never a
    # silent empty answer), the log has it, and the server carries on
    before = len(client.log_messages)
    from pygls.exceptions import JsonRpcInternalError

    with pytest.raises(JsonRpcInternalError, match="deliberate failure"):
        await request(client, "stepsmith/_raise", {})
    assert any("deliberate failure" in m.message for m in client.log_messages[before:])
    assert any(m.type == T.MessageType.Error for m in client.log_messages[before:])
    # stray prints (ours or a library's, even raw writes to fd 1) never corrupt the stream
    assert await request(client, "stepsmith/_print", {}) == {"printed": True}
    res = await request(client, "stepsmith/reach", {"uri": 12345})
    assert "workflows" in res
    res = await request(client, "stepsmith/fixtures", {"uri": "not a uri"})
    assert "workflows" in res
    path = workspace / "billing" / "steps" / "scratch_alive.py"
    u = open_doc(client, path, "import os\n")
    assert [d.code for d in await diagnostics(client, u)] == ["SS101"]
    close_doc(client, u)


async def test_analysis_failure_fails_closed_and_is_logged(client, workspace):
    path = workspace / "billing" / "steps" / "scratch_crash.py"
    before = len(client.log_messages)
    u = open_doc(client, path, "# stepsmith-test: crash-analysis\n")
    diags = await diagnostics(client, u)
    assert [d.code for d in diags] == ["SS003"] and "could not analyse" in diags[0].message
    assert any("deliberate analysis failure" in m.message for m in client.log_messages[before:])
    v = change(client, u, (0, 0, 1, 0, "import os\n"))  # and it recovers on the next edit
    assert [d.code for d in await diagnostics(client, u, v)] == ["SS101"]
    close_doc(client, u)


async def test_hover_rule_docs_on_manifest_error(client, workspace):
    path = workspace / "billing" / "scratch4.workflow.yaml"
    text = ("workflow: scratch4\nversion: 1\npython: \"3.11\"\ntrigger: {manual: {}}\n"
            "steps:\n  - id: a\n    explanation: x\n    code: steps/total.py:total\n"
            "    inputs: {items: []}\n    network: everywhere\n")
    u = open_doc(client, path, text)
    await diagnostics(client, u, predicate=lambda ds: any(d.code == "SM005" for d in ds))
    h = await hover(client, u, pos(text, "everywhere", 2))
    assert "SM005" in h.contents.value and "Why:" in h.contents.value
    close_doc(client, u)


async def test_hover_on_step_inputs(client, workspace):
    path = workspace / "billing" / "workflow.yaml"
    text = path.read_text()
    u = open_doc(client, path, text)
    await diagnostics(client, u)
    # a source: its description and connection
    h = await hover(client, u, pos(text, "sources.invoices", 4))
    v = h.contents.value
    assert "source **`invoices`**" in v and "Invoices received yesterday" in v
    assert "**connection**: `ledger` — Accounts payable ledger" in v
    assert "parameter `invoices` of" in v
    p = pos(text, "sources.invoices")
    assert (h.range.start.line, h.range.start.character) == (p.line, p.character)
    assert h.range.end.character == p.character + len("sources.invoices")
    # another step's output: that step's id, explanation and code (linked to its def)
    h = await hover(client, u, pos(text, "items: steps.normalise.output", 14))
    v = h.contents.value
    assert "the output of step **`normalise`**" in v and "> Clean up each invoice." in v
    step_file = workspace / "billing" / "steps" / "normalise.py"
    line = pos(step_file.read_text(), "def normalise").line + 1  # 1-based in the link
    assert f"**code**: [`steps/normalise.py:normalise`]({uri(step_file)}#L{line})" in v
    assert "parameter `items` of [`steps/total.py:total`]" in v
    # a literal: passed verbatim, its JSON type, the parameter it feeds
    h = await hover(client, u, pos(text, "base: GBP", 7))
    v = h.contents.value
    assert "literal input passed verbatim" in v and "**JSON type**: `string`" in v
    assert "parameter `base` of [`steps/rates.py:fx_rates`]" in v
    close_doc(client, u)
