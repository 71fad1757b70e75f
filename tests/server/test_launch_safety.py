"""Opening a cloned folder must not run its Python code.

A folder may ship `stepsmith/__init__.py`, `yaml.py`, `pygls/`, `argparse.py`, ... Started with
`-m` (or `-c`) CPython puts the current folder first on sys.path, so each of these would run as
the user the moment an editor starts the server there. Every module below writes a marker when
imported; no marker may ever appear, and the server must still answer.

- the launch the VS Code extension makes (vscode-extension/src/interpreter.ts `planLaunch`:
  `<python> -P -m stepsmith.server`, PYTHONSAFEPATH=1), here even from the hostile folder;
- a bare `python -m stepsmith.server` started in the folder (the server drops the start folder
  from sys.path first thing: defence in depth for hand-written editor set-ups; the package being
  run is imported before any of our code can act, so that one is not shadowed here);
- `stepsmith serve`, the documented Neovim command.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import pytest
from lsp_kit import DATA, initialize, kill_server, make_client, open_doc, push_capabilities

# modules the server (or the interpreter probe) imports after start-up, and the package itself
SHADOWS = ("yaml", "argparse", "logging", "json", "pygls", "lsprotocol", "cattrs", "attrs",
           "pydantic", "ruamel", "typing_extensions", "concurrent", "stepsmith")
VENV_BIN = Path(sys.executable).parent


def hostile_folder(base: Path, *, with_package: bool = True) -> tuple[Path, Path]:
    """A workflow folder shipping modules that write a marker into `markers` when imported."""
    ws, markers = base / "cloned", base / "markers"
    markers.mkdir()
    shutil.copytree(DATA / "billing", ws / "billing", ignore=shutil.ignore_patterns(".stepsmith"))
    for name in SHADOWS:
        if name == "stepsmith" and not with_package:
            continue
        body = f"open({str(markers / name)!r}, 'w').close()\n"
        if name in ("pygls", "lsprotocol", "stepsmith", "ruamel", "concurrent"):
            (ws / name).mkdir()
            (ws / name / "__init__.py").write_text(body)
        else:
            (ws / f"{name}.py").write_text(body)
    return ws, markers


async def serve_once(cmd: list[str], cwd: Path, ws: Path, env: dict[str, str]) -> list:
    """Start the server like an editor would, initialize, open a step file with a violation,
    and return its diagnostics (a check that imports the manifest loader and the validator)."""
    client = make_client()
    client.versions = {}
    await client.start_io(*cmd, env=env, cwd=str(cwd))
    try:
        await asyncio.wait_for(initialize(client, ws, push_capabilities(),
                                          {"stepsmith": {"runOnSave": False, "trusted": False}}), 30)
        step = ws / "billing" / "steps" / "total.py"
        u = open_doc(client, step, "import os\n" + step.read_text(encoding="utf-8"))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while loop.time() < deadline:
            pubs = client.published.get(u) or []
            if pubs and pubs[-1][1]:
                break
            await asyncio.sleep(0.02)
        diags = list((client.published.get(u) or [(None, [])])[-1][1])
        await asyncio.wait_for(client.shutdown_session(), 10)
        return diags
    finally:
        await kill_server(client)


def server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONSAFEPATH", "PYTHONPATH")}
    env.update(extra)
    return env


def assert_clean(markers: Path, diags: list) -> None:
    assert sorted(p.name for p in markers.iterdir()) == [], "a module of the folder was imported"
    assert any(str(d.code) == "SS101" for d in diags), diags


@pytest.mark.asyncio
async def test_the_extensions_launch_imports_nothing_from_the_folder(tmp_path):
    # exactly what planLaunch gives (args and env), started IN the hostile folder: even if a
    # client kept the workspace as cwd, nothing of it is imported
    ws, markers = hostile_folder(tmp_path)
    cmd = [sys.executable, "-P", "-m", "stepsmith.server"]
    diags = await serve_once(cmd, ws, ws, server_env(PYTHONSAFEPATH="1", PYTHONUNBUFFERED="1"))
    assert_clean(markers, diags)


@pytest.mark.asyncio
async def test_a_bare_module_launch_drops_the_start_folder_from_sys_path(tmp_path):
    # `python -m stepsmith.server` by hand (a Neovim cmd, an old extension): the server removes
    # the start folder from sys.path before importing anything else
    ws, markers = hostile_folder(tmp_path, with_package=False)
    diags = await serve_once([sys.executable, "-m", "stepsmith.server"], ws, ws, server_env())
    assert_clean(markers, diags)


@pytest.mark.asyncio
async def test_stepsmith_serve_from_the_folder_imports_nothing_from_it(tmp_path):
    ws, markers = hostile_folder(tmp_path)
    diags = await serve_once([str(VENV_BIN / "stepsmith"), "serve"], ws, ws, server_env())
    assert_clean(markers, diags)


def test_the_start_folder_entries_are_dropped(tmp_path, monkeypatch):
    from stepsmith.server.safepath import without_start_folder

    monkeypatch.chdir(tmp_path)
    (tmp_path / "lib").mkdir()
    link = tmp_path.parent / f"{tmp_path.name}-link"
    link.symlink_to(tmp_path)
    path = ["", str(tmp_path), "/usr/lib/python3.11", ".", "lib", str(link), str(tmp_path / "lib"),
            "/opt/site-packages"]
    assert without_start_folder(path) == ["/usr/lib/python3.11", str(tmp_path / "lib"),
                                          "/opt/site-packages"]


@pytest.mark.asyncio
async def test_what_the_server_shows_does_not_depend_on_its_start_folder(tmp_path):
    # the extension now starts the server in its own folder, not the workspace: names the
    # client shows (a pending change's workflow) must come from the workspace, not the cwd
    # (an absolute name made VS Code's pending view fail: "//tmp/..." is not a URI path)
    from lsp_kit import copy_data, plain
    from lsprotocol import types as T

    ws = copy_data(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    client = make_client()
    client.versions = {}
    await client.start_io(sys.executable, "-P", "-m", "stepsmith.server",
                          env=server_env(PYTHONSAFEPATH="1"), cwd=str(elsewhere))
    try:
        await asyncio.wait_for(initialize(client, ws, push_capabilities(),
                                          {"stepsmith": {"runOnSave": False, "runOnType": False}}), 30)

        async def command(name, args):
            return plain(await asyncio.wait_for(client.workspace_execute_command_async(
                T.ExecuteCommandParams(command=name, arguments=args)), 60))

        manifest = (ws / "billing" / "workflow.yaml").as_uri()
        res = await command("stepsmith.runStepFixtures", [manifest, "total"])
        assert any(r["status"] == "failed" and r.get("pendingUri") for r in res["results"]), res
        items = (await command("stepsmith.pending.list", []))["items"]
        assert items and {i["workflow"] for i in items} == {"billing"}, items
        await asyncio.wait_for(client.shutdown_session(), 10)
    finally:
        await kill_server(client)
