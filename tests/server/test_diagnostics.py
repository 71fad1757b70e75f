"""Diagnostics end to end, for a push client and a pull client."""

from __future__ import annotations

import pytest
from lsp_kit import change, close_doc, codes, diagnostics, open_doc
from lsprotocol import types as T

pytestmark = pytest.mark.asyncio(loop_scope="module")

BAD = "import os\nfrom decimal import Decimal\n\n\ndef helper(x):\n    return eval(x)\n"


async def test_violations_on_open_and_after_edit(client, workspace):
    path = workspace / "billing" / "steps" / "scratch_a.py"
    u = open_doc(client, path, BAD)
    diags = await diagnostics(client, u)
    assert codes(diags) == [("SS101", 0), ("SS301", 5)]
    d = next(d for d in diags if d.code == "SS101")
    assert (d.range.start.character, d.range.end.character) == (7, 9)
    assert d.source == "stepsmith" and d.severity == T.DiagnosticSeverity.Error
    assert d.data["rule"] == "SS101"
    # no link unless the rule pages' https location is configured (test_rule_links.py)
    assert d.code_description is None
    # incremental edit: fix the import, break something else
    v = change(client, u, (0, 7, 0, 9, "json"), (5, 11, 5, 15, "exec"))
    diags = await diagnostics(client, u, v)
    assert codes(diags) == [("SS301", 5)]
    assert "exec" in diags[0].message


async def test_syntax_error_at_its_real_position(client, workspace):
    path = workspace / "billing" / "steps" / "scratch_syntax.py"
    u = open_doc(client, path, "def ok():\n    return 1\n\n\ndef bad(x:\n    return x\n")
    diags = await diagnostics(client, u)
    assert [d.code for d in diags] == ["SS001"]
    assert diags[0].range.start.line == 4


async def test_example_step_files_are_clean_in_context(client, workspace):
    # rates.py imports urllib.request: allowed only because the manifest declares its step
    # public_egress — the server must know that on the very first publish.
    u = open_doc(client, workspace / "billing" / "steps" / "rates.py")
    assert await diagnostics(client, u) == []
    u2 = open_doc(client, workspace / "billing" / "steps" / "draft.py")
    assert await diagnostics(client, u2) == []


async def test_burst_of_edits_never_publishes_a_stale_version(client, workspace):
    path = workspace / "billing" / "steps" / "scratch_burst.py"
    u = open_doc(client, path, "def f(x):\n    return x\n")
    await diagnostics(client, u)
    for i in range(60):
        change(client, u, (1, 12, 1, 12, f" + eval('{i}')" if i % 2 else " "))
    final = client.versions[u]
    diags = await diagnostics(client, u, final)
    assert {d.code for d in diags} == {"SS301"}
    if client.mode == "push":
        versions = [v for v, _ in client.published[u]]
        assert versions == sorted(versions), versions  # never an older version after a newer one
        assert versions[-1] == final


async def test_close_clears_diagnostics(client, workspace):
    path = workspace / "billing" / "steps" / "scratch_close.py"
    u = open_doc(client, path, "import os\n")
    assert len(await diagnostics(client, u)) == 1
    close_doc(client, u)
    if client.mode == "push":
        import asyncio

        for _ in range(200):
            if list(client.published[u][-1][1]) == []:
                break
            await asyncio.sleep(0.02)
        assert list(client.published[u][-1][1]) == []


async def test_utf16_positions_on_non_ascii(client, workspace):
    # '𝔘' is two UTF-16 code units, one code point; 'é' is one of each
    text = "def f(x):\n    s = '𝔘é𝔘'; return eval(x)\n"
    path = workspace / "billing" / "steps" / "scratch_utf16.py"
    u = open_doc(client, path, text)
    diags = await diagnostics(client, u)
    d = diags[0]
    line = text.splitlines()[1]
    col_cp = line.index("eval")
    col_utf16 = len(line[:col_cp].encode("utf-16-le")) // 2
    assert col_utf16 == col_cp + 2
    assert d.range.start.character == col_utf16
    # an edit addressed in UTF-16 units right after the astral characters
    v = change(client, u, (1, col_utf16, 1, col_utf16 + 4, "exec"))
    diags = await diagnostics(client, u, v)
    assert "exec" in diags[0].message and diags[0].range.start.character == col_utf16


async def test_manifest_errors_at_exact_positions(client, workspace):
    path = workspace / "billing" / "scratch.workflow.yaml"
    text = (
        "workflow: scratch\nversion: 1\npython: \"3.11\"\ntrigger: {manual: {}}\n"
        "steps:\n  - id: a\n    explanation: x\n    code: steps/total.py:total\n    inputs: {items: []}\n    netwrok: none\n"
    )
    u = open_doc(client, path, text)
    diags = await diagnostics(client, u, predicate=lambda ds: any(d.code == "SM003" for d in ds))
    sm003 = next(d for d in diags if d.code == "SM003")
    assert sm003.range.start.line == 9 and sm003.range.start.character == 4
    assert "network" in sm003.message  # did-you-mean
    close_doc(client, u)


async def test_cross_file_signature_change_rechecks_manifest(client, workspace):
    wf = workspace / "chasing"
    manifest = wf / "workflow.yaml"
    mu = open_doc(client, manifest)
    assert await diagnostics(client, mu) == []
    step_file = wf / "steps" / "late.py"
    text = step_file.read_text()
    su = open_doc(client, step_file, text)
    await diagnostics(client, su)
    # rename every parameter list's first parameter: the manifest's inputs no longer match
    lines = text.split("\n")
    i = next(n for n, line in enumerate(lines) if line.startswith("def "))
    j = lines[i].index("(") + 1
    change(client, su, (i, j, i, j, "zz_extra, "))
    mdiags = await diagnostics(client, mu, predicate=lambda ds: len(ds) > 0)
    assert all(d.code.startswith("SM2") for d in mdiags), codes(mdiags)
    # and back
    change(client, su, (i, j, i, j + len("zz_extra, "), ""))
    await diagnostics(client, mu, predicate=lambda ds: ds == [])
    close_doc(client, su)
    close_doc(client, mu)


async def test_cross_file_manifest_network_change_revalidates_step(client, workspace):
    wf = workspace / "billing"
    su = open_doc(client, wf / "steps" / "rates.py")
    assert await diagnostics(client, su) == []
    manifest = wf / "workflow.yaml"
    text = manifest.read_text()
    mu = open_doc(client, manifest, text)
    await diagnostics(client, mu)
    lines = text.split("\n")
    n = next(k for k, line in enumerate(lines) if "network: public_egress" in line)
    col = lines[n].index("public_egress")
    change(client, mu, (n, col, n, col + len("public_egress"), "none"))
    diags = await diagnostics(client, su, predicate=lambda ds: any(d.code == "SS105" for d in ds))
    assert any(d.code == "SS105" for d in diags)
    change(client, mu, (n, col, n, col + len("none"), "public_egress"))
    assert await diagnostics(client, su, predicate=lambda ds: ds == []) == []
    close_doc(client, mu)


async def test_huge_file_gets_one_clear_diagnostic(client, workspace):
    path = workspace / "billing" / "steps" / "scratch_huge.py"
    text = "def f(x):\n    return x\n" + "# padding\n" * 300_000
    u = open_doc(client, path, text)
    diags = await diagnostics(client, u)
    assert [d.code for d in diags] == ["SS002"]
    assert "too large" in diags[0].message
    close_doc(client, u)


async def test_unsaved_new_manifest_is_forgotten_on_close(client, workspace):
    path = workspace / "billing" / "unsaved.workflow.yaml"
    text = (workspace / "billing" / "workflow.yaml").read_text().replace(
        "workflow: billing", "workflow: unsaved").replace("network: public_egress", "network: none")
    su = open_doc(client, workspace / "billing" / "steps" / "rates.py")
    assert await diagnostics(client, su) == []
    mu = open_doc(client, path, text)
    # the unsaved manifest runs rates.py's step without network: its urllib import is refused
    await diagnostics(client, su, predicate=lambda ds: any(d.code == "SS105" for d in ds))
    close_doc(client, mu)
    assert await diagnostics(client, su, predicate=lambda ds: ds == []) == []
    close_doc(client, su)


async def test_a_buffer_that_keeps_its_byte_order_mark_gets_positions_in_its_text(client,
                                                                                  workspace):
    """A client that keeps the BOM in didOpen counts it as line 0's first character: every
    line-0 position after it is one UTF-16 unit on (it was off by one: squiggles and fix edits
    a column early); other lines do not move."""
    path = workspace / "billing" / "steps" / "scratch_bom.py"
    u = open_doc(client, path, "\ufeffimport os\n\n\ndef f(x):\n    return eval(x)\n")
    diags = await diagnostics(client, u)
    assert codes(diags) == [("SS101", 0), ("SS301", 4)]
    imp = next(d for d in diags if d.code == "SS101")
    assert (imp.range.start.character, imp.range.end.character) == (8, 10)
    assert next(d for d in diags if d.code == "SS301").range.start.character == 11
    manifest = workspace / "billing" / "workflow.yaml"
    text = manifest.read_text(encoding="utf-8").split("\n", 1)[1]  # from `workflow:` on
    assert text.startswith("workflow:")
    m = open_doc(client, manifest, "\ufeff" + text.replace("workflow:", "workflw:", 1))
    (bad,) = [d for d in await diagnostics(client, m) if d.code == "SM003"]
    assert (bad.range.start.line, bad.range.start.character, bad.range.end.character) == (
        0, 1, 8)
    close_doc(client, m)


FIXTURE_OK = ('{"inputs": {"items": []}, "evaluation_time": "2026-12-01T07:00:00+00:00",\n'
              ' "expected": {"output": "0"}}\n')


async def test_a_fixture_file_has_what_check_says_of_its_current_text(client, workspace):
    """The editor shows a fixture file's check findings (SF002-SF009) on the buffer's text,
    with the buffer's version: never the disk's answer, never an older version's."""
    path = workspace / "billing" / "fixtures" / "total" / "scratch_fx.json"
    path.write_text(FIXTURE_OK)  # clean on disk: what the editor shows is the buffer's
    try:
        u = open_doc(client, path, FIXTURE_OK.replace('"items"', '"itemz"'))
        diags = await diagnostics(client, u)
        assert codes(diags) == [("SF005", 0), ("SF006", 0)]
        assert all(d.source == "stepsmith" for d in diags)
        assert "did you mean 'items'" in next(d for d in diags if d.code == "SF005").message
        v = change(client, u, '{"inputs": ')
        diags = await diagnostics(client, u, v)
        assert codes(diags) == [("SF002", 0)]
        v = change(client, u, FIXTURE_OK)
        assert await diagnostics(client, u, v) == []
        if client.mode == "push":
            versions = [ver for ver, _ in client.published[u]]
            assert versions == sorted(versions) and versions[-1] == v, versions
        close_doc(client, u)
    finally:
        path.unlink()
