"""The same reach from every front end: `stepsmith reach --format json`, MCP `reach` (the SDK's
own client over stdio) and the language server's `stepsmith/reach` (pytest-lsp) give the same
record for every step of every workflow — sources with where they come from, effects with their
target, the interpreter — for the two examples and a generated tree of workflows (every kind
of source and effect, steps reaching nothing, a pin not installed, a manifest that is not a
workflow). Only the paths are shown differently; the editor adds its URIs and ranges."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsp_kit import (
    EXAMPLES,
    SERVER,
    initialize,
    make_client,
    plain,
    pull_capabilities,
)
from mcp import Client, StdioServerParameters
from pytest_lsp import ClientServerConfig

pytestmark = pytest.mark.asyncio(loop_scope="module")

# what only the editor's answer holds: where things are, what changed since git's HEAD
EDITOR_ONLY = {"manifestUri", "sinceHead"}
EDITOR_ONLY_STEP = {"location", "codeLocation", "changesSinceHead"}


def _workflow(rng: random.Random, n: int) -> str:
    """A valid workflow whose steps draw their reach at random from every kind there is."""
    pin = "3.11" if n % 4 else "3.9"  # one pin in four names no interpreter on this machine
    lines = [f"workflow: generated-{n}", f"version: {rng.randint(1, 9)}", f'python: "{pin}"',
             "trigger: {manual: {}}", "connections:", "  ledger: {description: Ledger}",
             "  crm: {description: Customers}", "sources:",
             "  invoices: {connection: ledger}", "  accounts: {connection: crm}",
             "  alerts: {kind: channel, channel: billing-alerts}",
             "  owners: {kind: graph, query: account_owners}", "effects:",
             "  draft: {connection: ledger, kind: create, key: id}",
             "  note: {connection: crm, kind: update, key: id}",
             "  post: {channel: finance-requests, kind: send, key: day}", "steps:"]
    sources = ["invoices", "accounts", "alerts", "owners"]
    effect_connection = {"draft": "ledger", "note": "crm", "post": None}
    for i in range(rng.randint(1, 4)):
        read = rng.sample(sources, rng.randint(0, 3))
        effects = rng.sample(sorted(effect_connection), rng.randint(0, 2))
        grants = sorted({effect_connection[e] for e in effects} - {None}
                        | set(rng.sample(["ledger", "crm"], rng.randint(0, 1))))
        lines += [f"  - id: s{i}", f"    explanation: Step {i} of workflow {n}.",
                  f"    code: steps/s{i}.py:s{i}"]
        lines += ["    inputs:"] + [f"      in_{s}: sources.{s}" for s in read] if read else []
        if not read:
            lines += ["    inputs: {}"]
        if rng.random() < 0.3:
            lines.append("    network: public_egress")
        if grants:
            lines.append(f"    connections: [{', '.join(grants)}]")
        if effects:
            lines.append(f"    effects: [{', '.join(effects)}]")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """The two examples, eight generated workflows and one manifest that is not a workflow."""
    root = tmp_path_factory.mktemp("reach") / "ws"
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns(".stepsmith"))
    rng = random.Random(30)
    for n in range(8):
        folder = root / "generated" / f"w{n}"
        (folder / "steps").mkdir(parents=True)
        text = _workflow(rng, n)
        (folder / "workflow.yaml").write_text(text)
        for i in range(4):
            (folder / "steps" / f"s{i}.py").write_text(f"def s{i}(**inputs):\n    return None\n")
    broken = root / "broken"
    broken.mkdir()
    (broken / "workflow.yaml").write_text("workflow: broken\nversion: one\nsteps: []\n")
    return root


def _canonical(answer: dict, root: Path) -> tuple[str, dict]:
    """The sentence and each workflow's entry by its manifest's real path, without what only
    the editor holds."""
    out = {}
    for w in answer["workflows"]:
        manifest = Path(w["manifest"])
        key = str((manifest if manifest.is_absolute() else root / manifest).resolve())
        entry = {k: v for k, v in w.items() if k not in EDITOR_ONLY | {"manifest"}}
        entry["steps"] = [{k: v for k, v in s.items() if k not in EDITOR_ONLY_STEP}
                          for s in w["steps"]]
        out[key] = entry
    return answer["sentence"], out


def _cli(root: Path) -> dict:
    p = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "reach", "--format",
                        "json"], cwd=root, capture_output=True, text=True, timeout=120,
                       check=False)
    assert p.returncode == 1, p.stderr  # the broken manifest is said, the rest is reported
    return json.loads(p.stdout)


async def _mcp(root: Path) -> dict:
    params = StdioServerParameters(command=sys.executable, cwd=str(root),
                                   args=["-m", "stepsmith.runner.cli", "mcp", str(root)])
    async with Client(params) as client:
        result = await client.call_tool("reach", {})
    assert not result.is_error, result
    return result.structured_content


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client),
                    scope="module")
async def editor(lsp_client: pytest_lsp.LanguageClient, tree):
    await initialize(lsp_client, tree, pull_capabilities(), {"stepsmith": {"runOnSave": False}})
    yield
    await lsp_client.shutdown_session()


async def test_cli_mcp_and_the_editor_give_the_same_reach(editor, tree):
    from stepsmith.runner.app.shapes import ReachReport
    from stepsmith.server.protocol import ReachResponse

    lsp = plain(await editor.protocol.send_request_async("stepsmith/reach", {}))
    cli_json, mcp_json = _cli(tree), await _mcp(tree)
    # each answer is the declared shape (no key beyond it, none missing)
    ReachReport.model_validate(cli_json)
    ReachReport.model_validate(mcp_json)
    ReachResponse.model_validate(lsp)
    cli_sentence, cli = _canonical(cli_json, tree)
    mcp_sentence, mcp = _canonical(mcp_json, tree)
    lsp_sentence, lsp_answer = _canonical(lsp, tree)

    # the tree is what we meant: every workflow, the broken one said as such
    names = {w["workflow"] for w in cli.values()}
    assert names == {"invoice-matching", "payment-chasing", "broken",
                     *(f"generated-{n}" for n in range(8))}
    steps = [s for w in cli.values() for s in w["steps"]]
    origins = {o for s in steps for o in s["source_origins"].values()}
    assert origins == {"connection ledger", "connection crm", "channel billing-alerts",
                       "graph query account_owners", "connection xero"}, origins
    targets = {t for s in steps for t in s["effect_targets"].values()}
    assert {"create via ledger", "update via crm", "send to channel finance-requests"} <= targets
    assert any(s["reaches_nothing"] for s in steps) and any(
        s["network"] == "public_egress" for s in steps)
    (broken,) = [w for w in cli.values() if w["workflow"] == "broken"]
    assert broken["error"].startswith("SM") and broken["steps"] == []
    missing = [w for w in cli.values() if w["python"]["pin"] == "3.9"]
    assert missing and all(w["python"]["interpreter"] is None and w["python"]["problem"]
                           for w in missing)

    assert cli_sentence == mcp_sentence == lsp_sentence
    assert mcp == cli
    assert lsp_answer == cli
    # the editor's own additions: where each step and its function are
    for w in lsp["workflows"]:
        assert w["manifestUri"].startswith("file://")
        for s in w["steps"]:
            assert s["location"]["uri"] == w["manifestUri"]
