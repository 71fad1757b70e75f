"""The workspace an agent may touch (runner/agent/scope.py), and every refusal saying why:
containment by real path, whole components (a sibling `ws-secrets` is not under `ws`); a
`file://otherhost/...` root is not a local folder; FOLDER bounds the client's roots; `test`
paths (node ids included) go through the scope; a pending change into a symlinked `.stepsmith`
is refused with the reason (SDK client over stdio). Real sandbox."""

from __future__ import annotations

import shutil
from pathlib import Path

import agent_kit as ak
import pytest
from stepsmith.runner.agent.run_tools import selection_paths
from stepsmith.runner.agent.scope import OutsideRoots, Scope

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def ws(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "ws-secrets").mkdir()
    (tmp_path / "ws-secrets" / "key.txt").write_text("x")
    return root


def test_containment_compares_whole_components_not_string_prefixes(ws):
    scope = Scope.of([ws])
    secrets = ws.parent / "ws-secrets"
    for path in (str(secrets), str(secrets / "key.txt"), "../ws-secrets", "../ws-secrets/key.txt"):
        with pytest.raises(OutsideRoots, match="outside the workspace roots"):
            scope.resolve(path)
    assert scope.resolve("sub/x") == ws / "sub" / "x"
    assert scope.shown(secrets / "key.txt") == str(secrets / "key.txt")  # not "ws-secrets/..."


def test_a_file_uri_of_another_host_is_not_a_local_folder(ws):
    assert Scope.from_uris([f"file://otherhost{ws}", "file://otherhost/srv"]).roots == ()
    assert Scope.from_uris([f"file://localhost{ws}", ws.as_uri()]).roots == (ws, ws)
    assert Scope.from_uris(["https://example.org/x", "untitled:Untitled-1"]).roots == ()


def test_folder_bounds_the_roots_to_their_intersection(ws, tmp_path):
    inner = ws / "a"
    inner.mkdir()
    disk, other = Path("/"), tmp_path / "other"
    other.mkdir()
    bounded = Scope.of([disk, inner, other, ws.parent / "ws-secrets"]).bounded_by(ws)
    assert bounded.roots == (ws, inner)  # "/" becomes ws; other and ws-secrets go
    with pytest.raises(OutsideRoots, match="outside the workspace roots"):
        bounded.resolve(str(other))
    nothing = Scope.of([other]).bounded_by(ws)
    with pytest.raises(OutsideRoots, match=f"lie outside {ws}"):
        nothing.resolve(None)


def test_test_paths_and_node_ids_are_resolved_through_the_scope(ws):
    scope = Scope.of([ws])
    assert selection_paths(scope, None) == [str(ws)]
    assert selection_paths(scope, ["wf::total::one"]) == [f"{ws}/wf::total::one"]
    for bad in ("../ws-secrets", "../ws-secrets::total::one", "/etc::x"):
        with pytest.raises(OutsideRoots):
            selection_paths(scope, [bad])




@pytest.mark.asyncio(loop_scope="function")
@pytest.mark.usefixtures("sandbox")
async def test_test_never_runs_a_workflow_outside_the_roots(ws):
    outside = ws.parent / "outside-wf"
    shutil.copytree(REPO / "examples" / "payment-chasing", outside,
                    ignore=shutil.ignore_patterns(".stepsmith"))
    async with ak.assistant(ws) as a:
        for paths in (["../outside-wf"], [str(outside)], ["../outside-wf::remind"]):
            done = await a.call("test", {"paths": paths})
            assert done.is_error and "outside the workspace roots" in done.text, done.text
    assert not (outside / ".stepsmith").exists()  # nothing ran there: no run state written


@pytest.mark.asyncio(loop_scope="function")
@pytest.mark.usefixtures("sandbox")
async def test_a_pending_change_into_a_symlinked_state_folder_is_refused_with_the_reason(ws):
    ak.init(ws, "wf")
    elsewhere = ws.parent / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(ws / "wf" / ".stepsmith")
    (ws / "wf" / ".stepsmith").symlink_to(elsewhere)
    async with ak.assistant(ws) as a:
        done = await a.call("propose_fixture", {
            "workflow": "wf", "step": "total", "name": "x",
            "inputs": {"invoices": [{"id": "A", "amount": "1.00"}]}})
    assert done.is_error, done.text
    assert "symlink" in done.text and ".stepsmith" in done.text, done.text
    assert not list(elsewhere.iterdir())


@pytest.mark.asyncio(loop_scope="function")
async def test_a_refused_call_writes_no_log_block_on_stderr(ws, capfd):
    """The refusal is the client's answer; the server's stderr (a client's log pane) stays
    quiet: no rich-formatted block per tool error."""
    capfd.readouterr()
    async with ak.assistant(ws) as a:
        for _ in range(3):
            done = await a.call("check", {"paths": ["/etc"]})
            assert done.is_error and "outside the workspace roots" in done.text
    err = capfd.readouterr().err
    assert "Tool 'check' failed" not in err and "outside the workspace" not in err, err
    assert not any(c in err for c in "│╭╰"), err
