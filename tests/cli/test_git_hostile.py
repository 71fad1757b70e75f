"""Reading a revision of a hostile repository runs nothing and fetches nothing.

`reach --diff REV` and `check --base REV` read manifests and step files at REV with git. A
repository's config can name programs git runs when it has to reach a remote: a partial clone
fetches a missing object lazily, through `core.sshCommand`, `remote.<name>.uploadpack` (via
`sh -c`), a `credential.helper`, `core.askPass` or an `ext::` transport. A plain clone can
deliver such a config as an *embedded bare repository* (a committed folder holding `HEAD`,
`refs/`, `objects/` and `config`), which git prefers to the outer `.git` when run inside it.

Every test here builds the repository for real and asserts that the program the config names
never ran (its marker file does not exist); the fetch-driven ones also assert that the object
git could not fetch is "cannot be read at REV" and compared as absent, so it widens.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import threading
from pathlib import Path

import pytest
from gitkit import git, partial_clone
from manifest_kit import BASE, write_workflow
from stepsmith.runner.cli import main
from stepsmith.runner.revisions import gitrev


def _pwn(marker: Path) -> str:
    return f"id > {marker}"


def _embedded_bare_repo_clone(tmp_path: Path, marker: Path) -> Path:
    """The issue's repro: under flows/, HEAD, refs/heads/main naming a commit that does not
    exist, an empty objects/pack/ and a config making it a promisor of an ssh remote whose
    `core.sshCommand` writes the marker; committed, then cloned."""
    src = tmp_path / "src"
    src.mkdir()
    git(src, "init", "-q", "-b", "main")
    write_workflow(src / "flows" / "invoice", BASE)
    flows = src / "flows"
    (flows / "HEAD").write_text("ref: refs/heads/main\n")
    (flows / "refs" / "heads").mkdir(parents=True)
    (flows / "refs" / "heads" / "main").write_text("1" * 40 + "\n")
    (flows / "objects" / "pack").mkdir(parents=True)
    (flows / "objects" / "pack" / ".keep").write_text("")  # git keeps no empty folder
    (flows / "config").write_text(
        "[core]\n\trepositoryformatversion = 1\n\tbare = false\n\tworktree = .\n"
        f"\tsshCommand = \"sh -c '{_pwn(marker)}; exit 1' --\"\n"
        "[extensions]\n\tpartialClone = origin\n"
        "[remote \"origin\"]\n\turl = ssh://attacker.invalid/x\n\tpromisor = true\n")
    git(src, "add", "-A")
    git(src, "commit", "-qm", "flows")
    git(tmp_path, "clone", "-q", str(src), "clone")
    clone = tmp_path / "clone"
    assert (clone / "flows" / "config").is_file() and (clone / "flows" / "HEAD").is_file()
    return clone


def test_an_embedded_bare_repository_runs_nothing(tmp_path, monkeypatch, capsys):
    marker = tmp_path / "PWNED"
    clone = _embedded_bare_repo_clone(tmp_path, marker)
    monkeypatch.chdir(clone)
    rc = main(["reach", "--diff", "HEAD", "--format", "json", "flows/invoice"])
    out = capsys.readouterr()
    assert not marker.exists()
    # the repository read is the clone's own: the workflow is there, unchanged since HEAD
    assert rc == 0, out.err
    data = json.loads(out.out)
    assert [(w["path"], w["status"]) for w in data["workflows"]] == [
        ("flows/invoice/workflow.yaml", "unchanged")]
    assert main(["check", "--base", "HEAD", "flows/invoice"]) == 0, capsys.readouterr()
    assert not marker.exists()


# -- a repository whose own config is hostile (a tarball with its .git, a shared folder) -------
def _partial_clone(tmp_path: Path) -> Path:
    clone, old = partial_clone(tmp_path)
    missing = subprocess.run(["git", "cat-file", "-e", old], cwd=clone, capture_output=True,
                             text=True, env={**os.environ, "GIT_NO_LAZY_FETCH": "1"},
                             check=False)
    assert missing.returncode == 128 and "could not fetch" in missing.stderr  # needed later
    return clone


class _AskForCredentials(http.server.BaseHTTPRequestHandler):
    """An http remote that asks for credentials: git then runs its credential helper and
    askpass program."""

    def do_GET(self):
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="x"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def http_remote():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AskForCredentials)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/x"
    server.shutdown()
    server.server_close()


def _script(path: Path, marker: Path) -> Path:
    path.write_text(f"#!/bin/sh\n{_pwn(marker)}\nexit 1\n")
    path.chmod(0o755)
    return path


# each key: the config that makes git run a program, (section, key, value) rows
FETCHING = {
    "core.sshCommand": lambda m, s, h: [("remote.origin", "url", "ssh://attacker.invalid/x"),
                                        ("core", "sshCommand", f"sh -c '{_pwn(m)}; exit 1' --")],
    "remote.uploadpack": lambda m, s, h: [("remote.origin", "url", str(s.parent / "origin")),
                                          ("remote.origin", "uploadpack", f"{_pwn(m)}; false")],
    "credential.helper": lambda m, s, h: [("remote.origin", "url", h),
                                          ("credential", "helper", f"!{_pwn(m)}; false")],
    "core.askPass": lambda m, s, h: [("remote.origin", "url", h),
                                     ("core", "askPass", str(_script(s / "ask", m)))],
    "ext-transport": lambda m, s, h: [("remote.origin", "url", f"ext::{_script(s / 'ext', m)}"),
                                      ("protocol.ext", "allow", "always")],
}


def _set(repo: Path, rows) -> None:
    for section, key, value in rows:
        git(repo, "config", f"{section}.{key}", value)


@pytest.mark.parametrize("key", sorted(FETCHING))
def test_a_missing_object_is_never_fetched(tmp_path, monkeypatch, capsys, http_remote, key):
    marker = tmp_path / "PWNED"
    clone = _partial_clone(tmp_path)
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    _set(clone, FETCHING[key](marker, scripts, http_remote))
    monkeypatch.chdir(clone)
    rc = main(["reach", "--diff", "HEAD~1", "--format", "json", "--fail-on-widen", "wf"])
    out = capsys.readouterr()
    assert not marker.exists(), key
    # what cannot be read at REV is compared as absent: it cannot hide a widening
    data = json.loads(out.out)
    (w,) = data["workflows"]
    assert w["status"] == "unreadable" and "cannot be read at HEAD~1" in w["error"], w
    assert data["widens"] is True and rc == 1
    rc = main(["check", "--base", "HEAD~1", "wf"])
    err = capsys.readouterr().err
    assert not marker.exists(), key
    assert rc == 2 and "cannot be read at HEAD~1" in err, err


# keys git reads for commands that are not the plumbing we call: prove they are never used
NOT_USED = {
    "diff.external": [("diff", "external", "{script}")],
    "textconv": [("diff.evil", "textconv", "{script}")],
    "filter": [("filter.evil", "clean", "{script}"), ("filter.evil", "smudge", "{script}"),
               ("filter.evil", "process", "{script}"), ("filter.evil", "required", "true")],
    "core.fsmonitor": [("core", "fsmonitor", "{script}")],
    "hooks": [("core", "hooksPath", "{hooks}")],
    "core.pager": [("core", "pager", "{script}"), ("pager", "ls-tree", "{script}")],
    "gpg.program": [("gpg", "program", "{script}"), ("log", "showSignature", "true")],
}


@pytest.mark.parametrize("key", sorted(NOT_USED))
def test_programs_for_other_commands_never_run(tmp_path, monkeypatch, capsys, key):
    marker = tmp_path / "PWNED"
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_workflow(repo / "wf", BASE)
    (repo / ".gitattributes").write_text("* diff=evil filter=evil\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    script = _script(tmp_path / "evil", marker)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in ("pre-command", "post-checkout", "reference-transaction", "post-index-change"):
        _script(hooks / name, marker)
    _set(repo, [(s, k, v.format(script=script, hooks=hooks)) for s, k, v in NOT_USED[key]])
    (repo / "wf" / "workflow.yaml").write_text(BASE.replace("version: 3", "version: 4"))
    monkeypatch.chdir(repo)
    rc = main(["reach", "--diff", "HEAD", "--format", "json", "wf"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and [w["status"] for w in data["workflows"]] == ["unchanged"]
    assert main(["check", "--base", "HEAD", "wf"]) == 0
    capsys.readouterr()
    assert not marker.exists(), key
    # the blob read is the committed bytes, never a filter's or textconv's output
    rev = gitrev.Revision(repo / "wf", "HEAD")
    assert rev.read("wf/workflow.yaml") == BASE.encode()
    assert not marker.exists(), key


def test_inherited_git_variables_are_not_obeyed(tmp_path, monkeypatch, capsys):
    """GIT_DIR, GIT_CONFIG_* and GIT_EXEC_PATH in the environment would point git at another
    repository or give it config: the folder's own repository is read, with none of it."""
    marker = tmp_path / "PWNED"
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_workflow(repo / "wf", BASE)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    exec_path = tmp_path / "exec"
    exec_path.mkdir()
    _script(exec_path / "git-remote-ssh", marker)
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_EXEC_PATH", str(exec_path))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(_script(tmp_path / "fsmon", marker)))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.sshcommand'='{_pwn(marker)}'")
    monkeypatch.setenv("SSH_ASKPASS", str(_script(tmp_path / "askpass", marker)))
    monkeypatch.chdir(repo)
    rc = main(["reach", "--diff", "HEAD", "--format", "json", "wf"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert [w["status"] for w in data["workflows"]] == ["unchanged"]
    assert not marker.exists()
