"""One check, three front ends: for a tree of workflows with problems of every kind (step
files, manifests, fixture files of every SF rule — SF001 stale and SF009 bad names included —
and a manifest that does not parse), `stepsmith check --format json`, the language server's
diagnostics (a push and a pull client, pytest-lsp) and MCP `check` (the SDK's client over
stdio) report the same problems for every file: code, path, span, severity and message.

Each front end runs in the tree's root (SF001's message names paths as the current folder
shows them). The server's ranges are turned back into code points on the text it was given,
in the encoding it negotiated; every file of the tree is opened, so a file one front end
leaves out is a difference too. A position past the end of its line (a one-character span
after the last character of a file that stops short) is as the editor must show it: at the
line's end (LSP clamps a character beyond the line to its length)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
import wfkit as wfkit
from lsp_kit import (
    SERVER,
    kill_server,
    make_client,
    open_doc,
    pull_capabilities,
    push_capabilities,
    uri,
)
from lsprotocol import types as T

pytestmark = pytest.mark.asyncio(loop_scope="function")

# a wired fixture recorded from case day1: add/x now outputs another sum than its input holds
STALE = {"inputs": {"total": {"sum": "9.99"}}, "evaluation_time": "2026-12-01T07:00:00+00:00",
         "expected": {"output": {"twice": "19.98"}, "effects": []},
         "recorded_from": {"case": "day1", "upstream": {"add": {"fixture": "x",
                                                                "request_sha256": "0" * 64}}}}
BROKEN_CODE = ("import os\n" + wfkit.ADD_CODE.replace(
    "def double(total):\n",
    "def double(total):\n    note = \"🎉 wide\"; probe = eval(\"1\")\n"))


def write_tree(root: Path) -> Path:
    """The tree: `good` (clean code, fixtures broken every way), `broken` (step-file and
    manifest problems, a fixture that is not JSON), `unparsed` (YAML that does not parse,
    a fixture that says something about itself)."""
    good = wfkit.write_workflow(root / "good", fixtures={
        "add/x": wfkit.add_case("1.00", None, "1.50"),
        "double/wired": STALE,  # SF001
        "add/notjson": '{"inputs": {"a": ',  # SF002
        # SF003, after a wide character
        "add/typo": '{"inputs": {"a": "1.00"}, "note": "🎉", "expectd": {"output": 1}}\n',
        "ad/y": wfkit.add_case("1.00", None, "1.50"),  # SF004
        "add/extra": wfkit.add_case("1.00", None, "1.50", inputs={"a": "1", "c": "2"}),  # SF005
        "add/missing": {**wfkit.add_case("1.00", None, "1.50"), "inputs": {}},  # SF006
        "_workflow/day1": {"sources": {"numbrs": ["1.00"]},  # SF008
                           "evaluation_time": "2026-12-01T07:00:00+00:00"},
        "add/bad name": wfkit.add_case("1.00", None, "1.50"),  # SF009
    })
    (good / "fixtures" / "stray.json").write_text("{}\n")  # SF007
    manifest = wfkit.demo_manifest(workflow="broken")
    manifest["steps"][1]["explenation"] = manifest["steps"][1].pop("explanation")
    manifest["steps"].append({"id": "gone", "explanation": "Nowhere.",
                              "code": "steps/missing.py:gone", "inputs": {"a": "sources.numbers"}})
    wfkit.write_workflow(root / "broken", manifest, {"steps/calc.py": BROKEN_CODE},
                         fixtures={"add/x": '{"inputs": '})
    unparsed = wfkit.write_workflow(root / "unparsed", fixtures={
        "add/x": '{"inputs": {"a": "1.00"}, "expectd": {}}'})
    (unparsed / "workflow.yaml").write_text("workflow: unparsed\nsteps: [\n  - id: add\n")
    return root


def tree_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and ".stepsmith" not in p.parts
                  and p.suffix in (".yaml", ".py", ".json"))


# (path relative to the root, code, line, column, end_line, end_column, severity, message)
Key = tuple


def from_cli(root: Path) -> set[Key]:
    p = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "check", "--format",
                        "json", "--no-cache", "."], cwd=root, capture_output=True, text=True,
                       timeout=300, check=False)
    assert p.returncode == 1, p.stderr
    doc = json.loads(p.stdout)
    out = {(d["path"], d["code"], d["line"], d["column"], d["end_line"], d["end_column"],
            d["severity"], d["message"]) for d in doc["problems"]}
    # the stale wired fixtures are the document's `warnings` (their message says the code)
    out |= {(w["fixture"], w["code"], w["line"], w["column"], w["end_line"], w["end_column"],
             "warning", w["message"].removeprefix(f"{w['code']} ")) for w in doc["warnings"]}
    return out


async def from_mcp(root: Path) -> set[Key]:
    from mcp import Client

    async with Client(wfkit_server(root)) as client:
        res = await client.call_tool("check", {})
    assert not res.is_error, res.content
    return {(d["path"], d["code"], d["line"], d["column"], d["end_line"], d["end_column"],
             d["severity"], d["message"]) for d in res.structured_content["problems"]}


def wfkit_server(root: Path):
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, cwd=str(root),
                                 args=["-m", "stepsmith.runner.cli", "mcp", str(root)])


def _codepoints(line: str, character: int, encoding: str) -> int:
    units = 0
    for i, ch in enumerate(line):
        if units >= character:
            return i
        units += len(ch.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(ch.encode())
    return len(line)


async def from_server(root: Path, mode: str) -> set[Key]:
    client = make_client()
    client.versions = {}
    await client.start_io(*SERVER, cwd=str(root))
    try:
        caps = push_capabilities() if mode == "push" else pull_capabilities()
        result = await client.initialize_session(T.InitializeParams(
            capabilities=caps, root_uri=uri(root),
            workspace_folders=[T.WorkspaceFolder(uri=uri(root), name=root.name)],
            initialization_options={"stepsmith": {"runOnSave": False, "runOnType": False}}))
        enc = "utf-8" if result.capabilities.position_encoding == "utf-8" else "utf-16"
        # the workspace settles first (every manifest checked): then each file's first answer
        # is its answer
        await client.protocol.send_request_async("stepsmith/fixtures", {})
        files = tree_files(root)
        uris = {open_doc(client, p): p for p in files}
        out: set[Key] = set()
        for u, path in uris.items():
            lines = path.read_text(encoding="utf-8").split("\n")
            for d in await _settled(client, u, mode):
                if d.source != "stepsmith":
                    continue
                r = d.range
                sl, el = lines[r.start.line], lines[min(r.end.line, len(lines) - 1)]
                out.add((path.relative_to(root).as_posix(), str(d.code), r.start.line + 1,
                         _codepoints(sl, r.start.character, enc), r.end.line + 1,
                         _codepoints(el, r.end.character, enc),
                         "warning" if d.severity == 2 else "error", d.message))
        await asyncio.wait_for(client.shutdown_session(), 10)
        return out
    finally:
        await kill_server(client)


async def _settled(client, u: str, mode: str, timeout: float = 30.0) -> list:
    """The diagnostics of the open document's version 1: pushed (the last publication for
    it), or pulled."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        if mode == "pull":
            try:
                rep = await client.text_document_diagnostic_async(T.DocumentDiagnosticParams(
                    text_document=T.TextDocumentIdentifier(uri=u)))
                return list(rep.items)
            except Exception:  # noqa: BLE001  ServerCancelled while it changes: ask again
                pass
        else:
            pubs = client.published.get(u) or []
            if pubs and pubs[-1][0] == 1:
                await asyncio.sleep(0.3)  # a later publication (a cross-file result) wins
                return list((client.published.get(u) or pubs)[-1][1])
        if loop.time() > deadline:
            raise AssertionError(f"no diagnostics for {u}")
        await asyncio.sleep(0.01)


@pytest.fixture
def tree(tmp_path) -> Path:
    return write_tree(tmp_path / "tree")


def _clamped(root: Path, found: set[Key]) -> set[Key]:
    out = set()
    for path, code, line, col, end_line, end_col, severity, message in found:
        lines = (root / path).read_text(encoding="utf-8").split("\n")
        col = min(col, len(lines[line - 1]))
        end_col = min(end_col, len(lines[min(end_line, len(lines)) - 1]))
        out.add((path, code, line, col, end_line, end_col, severity, message))
    return out


def _by_file(found: set[Key]) -> dict[str, list[Key]]:
    out: dict[str, list[Key]] = {}
    for k in sorted(found):
        out.setdefault(k[0], []).append(k)
    return out


async def test_cli_server_and_mcp_report_the_same_problems_for_every_file(tree):
    cli = from_cli(tree)
    codes = {k[1] for k in cli}
    # the tree holds what it promises: every fixture rule, step-file and manifest findings
    assert {f"SF00{i}" for i in range(1, 10)} <= codes, sorted(codes)
    assert {"SS101", "SS301", "SM003", "SM004", "SM201", "SM001"} <= codes, sorted(codes)
    files = {k[0] for k in cli}
    assert "good/fixtures/add/bad name.json" in files and "good/fixtures/stray.json" in files
    want = _by_file(cli)
    mcp = _by_file(await from_mcp(tree))
    assert mcp == want
    in_editor = _by_file(_clamped(tree, cli))
    assert in_editor != want  # (the tree holds a span past its line's end: SF002 at the end)
    for mode in ("push", "pull"):
        got = _by_file(await from_server(tree, mode))
        assert got == in_editor, mode
