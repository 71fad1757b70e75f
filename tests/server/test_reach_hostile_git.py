"""The reach panel's "widened since HEAD" runs git in a trusted session (the default for a
client that sends no settings, as Neovim and Helix do). A cloned repository that commits an
embedded bare repository whose config names a program (a partial clone's `core.sshCommand`)
must not make that git run it: the server reads the clone's own repository."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest
import pytest_lsp
from lsp_kit import CONFIG, DATA, initialize, plain, push_capabilities

pytestmark = pytest.mark.asyncio(loop_scope="module")

ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": os.environ["PATH"]}


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True)


def _hostile_clone(base: Path, marker: Path) -> Path:
    src = base / "src"
    flows = src / "flows"
    flows.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-r", str(DATA / "billing"), str(flows)], check=True)
    (flows / "HEAD").write_text("ref: refs/heads/main\n")
    (flows / "refs" / "heads").mkdir(parents=True)
    (flows / "refs" / "heads" / "main").write_text("1" * 40 + "\n")
    (flows / "objects" / "pack").mkdir(parents=True)
    (flows / "objects" / "pack" / ".keep").write_text("")
    (flows / "config").write_text(
        "[core]\n\trepositoryformatversion = 1\n\tbare = false\n\tworktree = .\n"
        f"\tsshCommand = \"sh -c 'id > {marker}; exit 1' --\"\n"
        "[extensions]\n\tpartialClone = origin\n"
        "[remote \"origin\"]\n\turl = ssh://attacker.invalid/x\n\tpromisor = true\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "flows"]):
        _git(src, *args)
    _git(base, "clone", "-q", str(src), "ws")
    return base / "ws"


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def hostile(lsp_client: pytest_lsp.LanguageClient, tmp_path_factory):
    base = tmp_path_factory.mktemp("hostilegit")
    lsp_client.marker = base / "PWNED"
    lsp_client.ws = _hostile_clone(base, lsp_client.marker)
    await initialize(lsp_client, lsp_client.ws, push_capabilities())  # no settings: trusted
    yield
    await lsp_client.shutdown_session()


async def test_reach_since_head_runs_nothing_the_repository_names(hostile):
    client = hostile
    res = plain(await asyncio.wait_for(
        client.protocol.send_request_async("stepsmith/reach", {}), 30))
    (wf,) = res["workflows"]
    assert not client.marker.exists()
    # the clone's own repository was read: the manifest is unchanged since HEAD
    assert wf["sinceHead"] == {"status": "unchanged", "widens": False, "changes": []}
    assert wf["manifestUri"].endswith("/flows/billing/workflow.yaml")
