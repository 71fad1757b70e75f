"""Rule links a reader can open: a diagnostic carries `codeDescription.href` only when the
`ruleDocsUrl` setting names an https location (template with `{code}`, or a base); by default
none (a file:// link to the server's disk opens nothing on the reader's machine). Real server
over pytest-lsp, push and pull; the setting changes without a restart."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsp_kit import (
    CONFIG,
    DATA,
    diagnostics,
    initialize,
    open_doc,
    pull_capabilities,
    push_capabilities,
)
from lsprotocol import types as T
from stepsmith.runner.problems import Problem, Span
from stepsmith.runner.rules.pages import https_rule_url
from stepsmith.server.convert import to_diagnostic

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=CONFIG, scope="module", params=["push", "pull"])
async def linked(lsp_client: pytest_lsp.LanguageClient, request, tmp_path_factory):
    import shutil

    ws = tmp_path_factory.mktemp("links") / "ws"
    shutil.copytree(DATA, ws, ignore=shutil.ignore_patterns(".stepsmith"))
    lsp_client.mode, lsp_client.versions, lsp_client.ws = request.param, {}, ws
    caps = push_capabilities() if request.param == "push" else pull_capabilities()
    await initialize(lsp_client, ws, caps, {"stepsmith": {"runOnSave": False,
                                                          "runOnType": False}})
    yield
    await lsp_client.shutdown_session()


async def test_a_diagnostic_links_to_the_rule_only_at_a_configured_https_location(linked):
    client = linked
    step = client.ws / "billing" / "steps" / "total.py"
    u = open_doc(client, step, "import os\n" + step.read_text())
    (d,) = [x for x in await diagnostics(client, u, predicate=lambda ds: ds) if x.code == "SS101"]
    assert d.code_description is None
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(settings={
        "stepsmith": {"runOnSave": False, "runOnType": False,
                      "ruleDocsUrl": "https://docs.example.org/stepsmith/rules/{code}.md"}}))
    u = open_doc(client, step, "import os\n\n" + step.read_text())
    want = "https://docs.example.org/stepsmith/rules/SS101.md"
    got = await diagnostics(client, u, predicate=lambda ds: any(
        x.code_description and x.code_description.href == want for x in ds))
    assert [x.code_description.href for x in got if x.code == "SS101"] == [want]


def test_only_https_locations_become_links():
    assert https_rule_url("https://x.org/r/{code}.html", "SM003") == "https://x.org/r/SM003.html"
    assert https_rule_url("https://x.org/rules/", "SM003") == "https://x.org/rules/SM003.md"
    for bad in (None, "", "http://x.org/{code}", "file:///usr/share/docs/{code}.md",
                "javascript:alert(1)//{code}", "https://x.org/a b/{code}", 3):
        assert https_rule_url(bad, "SM003") is None, bad
    p = Problem("SM003", "unknown key", Span(1, 0, 1, 3))
    assert "codeDescription" not in to_diagnostic(p, ["abc"], "utf-16")
    linked = to_diagnostic(p, ["abc"], "utf-16", rule_docs="https://x.org/rules")
    assert linked["codeDescription"] == {"href": "https://x.org/rules/SM003.md"}
