"""Each layer of the git hardening (runner/revisions/gitrev.py) holds on its own.

The layers overlap on purpose: a missing object is not fetched lazily (`GIT_NO_LAZY_FETCH`),
and no transport is allowed anyway (`GIT_ALLOW_PROTOCOL` empty, `protocol.allow=never`); the
repository read is the folder's own (`GIT_CEILING_DIRECTORIES`) and never an embedded bare one
(`safe.bareRepository=explicit`). The tests of test_git_hostile.py pass as long as one layer
holds; these run git with ONE layer left, so removing that layer from gitrev fails here.
"""

from __future__ import annotations

import subprocess
import tracemalloc
from pathlib import Path

import pytest
from gitkit import committed_workflow, git, partial_clone
from manifest_kit import BASE, write_workflow
from stepsmith.runner.cli import main
from stepsmith.runner.revisions import gitrev

FETCH_LAYERS = {  # what each layer is in the command gitrev builds
    "lazy-fetch": ("env", "GIT_NO_LAZY_FETCH"),
    "protocol-allow-list": ("env", "GIT_ALLOW_PROTOCOL"),
    "protocol.allow": ("config", "protocol.allow="),
}


def _partial_clone(tmp_path: Path, allow_file: bool = True) -> tuple[Path, str]:
    """gitkit's partial clone; with `allow_file`, its config allows the file protocol by name
    (`protocol.file.allow=always`)."""
    clone, obj = partial_clone(tmp_path)
    if allow_file:
        git(clone, "config", "protocol.file.allow", "always")
    return clone, obj


def _run_with_only(layer: str | None, clone: Path, obj: str) -> subprocess.CompletedProcess:
    """`git cat-file blob OBJ` as gitrev runs it, with every fetch layer but `layer` taken
    out (None: all of them)."""
    argv = gitrev.command(["cat-file", "blob", obj])
    env = gitrev.environment(clone)
    for name, (where, item) in FETCH_LAYERS.items():
        if name == layer:
            continue
        if where == "env":
            del env[item]
        else:
            (i,) = [i for i, a in enumerate(argv) if a.startswith(item)]
            assert argv[i - 1] == "-c"
            del argv[i - 1:i + 1]
    return subprocess.run(argv, cwd=clone, env=env, capture_output=True, check=False)


def _present(clone: Path, obj: str) -> bool:
    return subprocess.run(["git", "cat-file", "-e", obj], cwd=clone, capture_output=True,
                          env={"PATH": "/usr/bin:/bin", "GIT_NO_LAZY_FETCH": "1"},
                          check=False).returncode == 0


def test_the_layers_are_in_the_command_gitrev_builds():
    argv, env = gitrev.command(["rev-parse"]), gitrev.environment(Path("/x/y"))
    assert (env["GIT_NO_LAZY_FETCH"], env["GIT_ALLOW_PROTOCOL"]) == ("1", "")
    assert env["GIT_CEILING_DIRECTORIES"] == "/x"
    for item in ("protocol.allow=never", "safe.bareRepository=explicit", "credential.helper=",
                 "core.askPass=", "core.sshCommand=false", "diff.external=",
                 "core.fsmonitor=false", "core.hooksPath=/dev/null"):
        assert argv[argv.index(item) - 1] == "-c", item


def test_without_any_layer_the_object_would_be_fetched(tmp_path):
    clone, obj = _partial_clone(tmp_path)
    assert not _present(clone, obj)
    p = _run_with_only(None, clone, obj)
    assert p.returncode == 0 and p.stdout == BASE.encode()  # the tests below can see a fetch
    assert _present(clone, obj)


@pytest.mark.parametrize("layer", sorted(FETCH_LAYERS))
def test_each_layer_alone_refuses_the_fetch(tmp_path, layer):
    # protocol.allow=never is only a default: a repository's protocol.<name>.allow beats it
    clone, obj = _partial_clone(tmp_path, allow_file=layer != "protocol.allow")
    p = _run_with_only(layer, clone, obj)
    assert p.returncode != 0 and p.stdout == b"", p.stderr
    assert not _present(clone, obj)


def test_a_repository_allowing_a_protocol_by_name_beats_protocol_allow_not_the_allow_list(
        tmp_path):
    """Why the empty GIT_ALLOW_PROTOCOL: it is the layer a repository's config cannot undo."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    clone, obj = _partial_clone(tmp_path / "a", allow_file=True)
    assert _run_with_only("protocol-allow-list", clone, obj).returncode != 0
    assert not _present(clone, obj)
    clone, obj = _partial_clone(tmp_path / "b", allow_file=True)
    assert _run_with_only("protocol.allow", clone, obj).returncode == 0
    assert _present(clone, obj)


def _outer_with(tmp_path: Path, bare: bool) -> Path:
    """A real repository whose wf/ holds an empty `.git` folder (a tarball's leftover) and,
    with `bare`, the files of a bare repository whose own history says version 9."""
    repo = committed_workflow(tmp_path)
    wf = repo / "wf"
    if bare:
        other = tmp_path / "other"
        other.mkdir()
        git(other, "init", "-q", "-b", "main")
        write_workflow(other / "wf", BASE.replace("version: 3", "version: 9"))
        git(other, "add", "-A")
        git(other, "commit", "-qm", "other")
        git(tmp_path, "clone", "-q", "--bare", str(other), "other.git")
        for name in ("HEAD", "config", "objects", "refs"):
            subprocess.run(["cp", "-r", str(tmp_path / "other.git" / name), str(wf / name)],
                           check=True)
    (wf / ".git").mkdir()
    return wf


def test_discovery_stops_at_the_folders_own_work_tree(tmp_path, monkeypatch, capsys):
    """wf/.git is not a repository: git must not walk up to the enclosing one (the work tree
    found is wf, whose repository is broken): the command fails instead."""
    wf = _outer_with(tmp_path, bare=False)
    monkeypatch.chdir(wf.parent)
    assert main(["reach", "--diff", "HEAD", "wf"]) == 2
    assert "not a git repository" in capsys.readouterr().err


def test_an_embedded_bare_repository_is_refused_even_where_discovery_reaches_it(
        tmp_path, monkeypatch, capsys):
    wf = _outer_with(tmp_path, bare=True)
    monkeypatch.chdir(wf.parent)
    assert main(["check", "--base", "HEAD", "--output-format", "json", "wf"]) == 2
    assert "cannot use bare repository" in capsys.readouterr().err


def test_a_blob_is_capped_while_it_is_read(tmp_path):
    repo = committed_workflow(tmp_path)
    (repo / "big.yaml").write_bytes(b"x" * (48 << 20))
    git(repo, "add", "big.yaml")
    git(repo, "commit", "-qm", "big")
    rev = gitrev.Revision(repo, "HEAD")
    tracemalloc.start()
    try:
        with pytest.raises(gitrev.GitError, match="cannot be read at HEAD: larger than 1048576"):
            rev.read("big.yaml", cap=1 << 20)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20  # never the whole 48 MiB blob in memory
    assert rev.read("wf/workflow.yaml", cap=1 << 20) == BASE.encode()
