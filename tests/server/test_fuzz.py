"""Fuzz: 10,000+ random incremental edits through the real server (stdio, push client).

Random and hostile text (line breaks of every kind, NUL, astral characters that are surrogate
pairs in UTF-16, lone surrogates, YAML/Python syntax fragments), invalid positions (past the
end of a line or of the document, inside a surrogate pair, reversed ranges), several changes
per notification. After each burst the diagnostics the server published for the final version
must equal a from-scratch check of the final text, computed here independently.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
import pytest_lsp
from lsp_kit import (
    CONFIG,
    change,
    copy_data,
    diagnostics,
    initialize,
    open_doc,
    push_capabilities,
)
from lsprotocol import types as T

pytestmark = pytest.mark.asyncio(loop_scope="module")

EDITS = 10_200
BURST = 60

PIECES = [
    "", "x", "def ", "def f(a):\n    return a\n", "    ", "\t", "\n", "\r\n", "\r", "\x00", "\x0c",
    "\u2028", "𝔘", "😀", "é", "\ud800", "(", ")", "[", "]", "{", "}", ":", "'", '"', '"""', "#",
    "\\", "import os\n", "import json\n", "eval(x)", "x.__class__", "class A:\n    pass\n",
    "@d\n", "async def g():\n    await h()\n", "  - id: z\n", "steps:\n", "network: none\n",
    "explanation: \n", "code: steps/total.py:total\n", "inputs: {items: []}\n", "- ", "!!int ",
    "&a ", "*a", "~", "---\n", "...\n", "\ufeff", "getattr(x, '_' + 'y')",
]

_NL = re.compile(r"\r\n|\r|\n")


def editor_lines(text: str) -> list[str]:
    out, pos = [], 0
    for m in _NL.finditer(text):
        out.append(text[pos:m.start()])
        pos = m.end()
    out.append(text[pos:])
    return out


def line_starts(text: str) -> list[int]:
    starts = [0]
    for m in _NL.finditer(text):
        starts.append(m.end())
    return starts


def utf16_to_cp(line: str, ch: int) -> int:
    units = 0
    for i, c in enumerate(line):
        w = 2 if ord(c) > 0xFFFF else 1
        if units + w > ch:
            return i
        units += w
    return len(line)


def offset(text: str, line: int, ch: int) -> int:
    lines = editor_lines(text)
    starts = line_starts(text)
    if line >= len(lines):
        return len(text)
    return starts[line] + utf16_to_cp(lines[line], ch)


def apply(text: str, sl, sc, el, ec, new: str) -> str:
    a = offset(text, sl, sc)
    b = offset(text, el, ec)
    if b < a:
        b = a
    return text[:a] + new + text[b:]


def cp_to_utf16(line: str, col: int) -> int:
    return len(line[:col].encode("utf-16-le", "surrogatepass")) // 2


def expected_diags(problems, text: str) -> list[tuple]:
    lines = editor_lines(text)

    def p(line1, col):
        i = line1 - 1
        if i < 0:
            return (0, 0)
        if i >= len(lines):
            return (len(lines) - 1, cp_to_utf16(lines[-1], len(lines[-1])))
        return (i, cp_to_utf16(lines[i], min(col, len(lines[i]))))

    out = []
    for pr in problems:
        s = p(pr.span.line, pr.span.column)
        e = p(pr.span.end_line, pr.span.end_column)
        if e < s:
            e = s
        out.append((s, e, pr.code, pr.message))
    return out


def got_diags(diags) -> list[tuple]:
    return [((d.range.start.line, d.range.start.character), (d.range.end.line, d.range.end.character),
             d.code, d.message) for d in diags]


def random_edit(rng: random.Random, text: str):
    lines = editor_lines(text)
    n = len(lines)

    def position():
        line = rng.choice([rng.randrange(n), rng.randrange(n + 3), n - 1])
        ln = lines[line] if line < n else ""
        units = cp_to_utf16(ln, len(ln))
        return line, rng.choice([rng.randrange(units + 1), rng.randrange(units + 5), units, 0])

    sl, sc = position()
    if rng.random() < 0.5:
        el, ec = sl, sc + rng.randrange(4)
    else:
        el, ec = position()
        if rng.random() < 0.9 and (el, ec) < (sl, sc):
            (sl, sc), (el, ec) = (el, ec), (sl, sc)
    new = "".join(rng.choice(PIECES) for _ in range(rng.choice([0, 1, 1, 2, 3])))
    return sl, sc, el, ec, new


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def fuzz_client(lsp_client: pytest_lsp.LanguageClient, tmp_path_factory):
    ws = copy_data(tmp_path_factory.mktemp("fuzz"))
    (ws / "scratch").mkdir()
    lsp_client.mode, lsp_client.versions, lsp_client.ws = "push", {}, ws
    await initialize(lsp_client, ws, push_capabilities(), {"stepsmith": {"runOnSave": False}})
    yield
    await lsp_client.shutdown_session()


async def test_fuzz_incremental_edits(fuzz_client):
    from stepsmith.runner.manifest import check_workflow
    from stepsmith.runner.validator import validate

    client = fuzz_client
    ws: Path = client.ws
    rng = random.Random(20261202)
    docs = {}
    for name in ("a.py", "b.py", "c.py"):
        path = ws / "scratch" / name
        text = (ws / "billing" / "steps" / "total.py").read_text() + "\n\ndef g(x):\n    return eval(x)\n"
        docs[open_doc(client, path, text)] = (path, text)
    mpath = ws / "billing" / "fuzz.workflow.yaml"
    mtext = (ws / "billing" / "workflow.yaml").read_text().replace("workflow: billing", "workflow: fuzz")
    docs[open_doc(client, mpath, mtext)] = (mpath, mtext)

    from collections import Counter

    stats = {"bursts": 0, "nonempty": 0, "codes": Counter()}
    done = 0
    while done < EDITS:
        u = rng.choice(list(docs))
        path, text = docs[u]
        for _ in range(BURST // 2):
            edits = [random_edit(rng, text) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
            for e in edits:  # several changes in one notification apply in order
                text = apply(text, *e)
            change(client, u, *edits)
            done += len(edits)
        docs[u] = (path, text)
        got = await diagnostics(client, u)
        if path.suffix == ".py":
            want = validate(text)
        else:
            check = check_workflow(path, lambda p, t=text, mp=path: t if Path(p) == mp else None)
            want = [p for k, ps in check.problems.items() if Path(k) == path for p in ps]
        assert got_diags(got) == expected_diags(want, text), (path.name, text)
        stats["bursts"] += 1
        stats["nonempty"] += bool(want)
        stats["codes"].update(p.code for p in want)
    assert done >= 10_000
    # the fuzz really exercised both clean and broken states, Python and YAML errors
    assert stats["nonempty"] > stats["bursts"] // 4
    assert {"SS001", "SM001"} <= set(stats["codes"]) and len(stats["codes"]) >= 6, stats
    # still serving normally afterwards
    h = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=next(iter(docs))), position=T.Position(0, 0)))
    assert h is None or h.contents
