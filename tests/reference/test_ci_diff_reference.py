"""`stepsmith check --diff` against git and GNU patch: the patch is the one `git diff` writes
for the same two files (byte for byte), `git apply --check` and `patch -p1 --dry-run` accept it,
and applying it gives exactly the files `check --fix` writes. On the hostile-name corpus
(tests/reference/cicorpus.py) and on generated edits (hypothesis: deleted, inserted and changed
lines, a last line without a newline, form feeds and U+2028 inside lines, definitions above
the hunk for git's funcname)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cicorpus import figure, write_check_corpus
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from stepsmith.runner.app.fix import plan
from stepsmith.runner.cli.check_diff import file_patch

STEPSMITH = Path(sys.executable).with_name("stepsmith")
#: git as a user without configuration runs it (no ~/.gitconfig, no system file)
GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "LC_ALL": "C.UTF-8"}

def git_patch(scratch: Path, shown: str, original: bytes, fixed: bytes) -> bytes:
    """What `git diff --no-index` writes for the two versions of `shown`."""
    for side, data in (("a", original), ("b", fixed)):
        p = scratch / side / shown
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    done = subprocess.run(["git", "diff", "--no-index", "--no-prefix", "--no-color",
                           "--no-ext-diff", f"a/{shown}", f"b/{shown}"], cwd=scratch,
                          env=GIT_ENV, capture_output=True, check=False)
    assert done.returncode == 1, done.stderr
    shutil.rmtree(scratch / "a")
    shutil.rmtree(scratch / "b")
    return done.stdout


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    repo = tmp_path_factory.mktemp("diff") / "repo"
    repo.mkdir()
    write_check_corpus(repo)
    return repo


def test_corpus_patches_are_gits_and_apply_to_what_fix_writes(corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(corpus)
    fixes = plan(["."], unsafe=True)
    assert len(fixes) >= 18  # each hostile folder a fixable step file, half a manifest
    for fx in fixes:
        shown = os.path.relpath(fx.path)
        ours = file_patch(shown, fx.original, fx.fixed)
        theirs = git_patch(tmp_path, shown, fx.original.encode(), fx.fixed.encode())
        figure("git diff --no-index (corpus files)", ours == theirs)
        assert ours == theirs, shown
    done = subprocess.run([STEPSMITH, "check", "--diff", "--unsafe-fixes", "."], cwd=corpus,
                          capture_output=True, check=False)
    assert done.returncode == 1, done.stderr
    patch = done.stdout
    fixed = tmp_path / "fixed"
    shutil.copytree(corpus, fixed)
    subprocess.run([STEPSMITH, "check", "--fix", "--unsafe-fixes", "."], cwd=fixed,
                   capture_output=True, check=False)
    changed = {os.path.relpath(fx.path, corpus) for fx in fixes}
    for name, argv in (("git apply", ["git", "apply", "-"]),
                       ("patch -p1", ["patch", "-p1", "--batch", "--quiet"])):
        copy = tmp_path / name.replace(" ", "-")
        shutil.copytree(corpus, copy)
        dry = ["git", "apply", "--check", "-"] if argv[0] == "git" else [*argv, "--dry-run"]
        for cmd in (dry, argv):
            p = subprocess.run(cmd, cwd=copy, input=patch, capture_output=True, env=GIT_ENV,
                               check=False)
            assert p.returncode == 0 and not p.stderr, (cmd, p.stdout, p.stderr)
        for rel in changed:
            same = (copy / rel).read_bytes() == (fixed / rel).read_bytes()
            figure(f"{name} result == --fix (files)", same)
            assert same, (name, rel)


LINE = st.sampled_from(["import os\n", "def f(a):\n", "    return a\n", "\n", "x = 1\n",
                        "_helper = 2\n", "$odd\n", "  indented:\n", "é\u2028still one line\n",
                        "form\ffeed\n", "class C:\n", "# note\n", "ünïcode " * 12 + "\n"])


@st.composite
def edit(draw):
    old = draw(st.lists(LINE, min_size=1, max_size=40))
    new = list(old)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(new)))
        what = draw(st.sampled_from(["delete", "insert", "change"]))
        if what == "insert" or not new:
            new.insert(i, draw(LINE))
        elif what == "delete":
            del new[min(i, len(new) - 1)]
        else:
            new[min(i, len(new) - 1)] = draw(LINE)
    a, b = "".join(old), "".join(new)
    if draw(st.booleans()):
        a = a.rstrip("\n")
    if draw(st.booleans()):
        b = b.rstrip("\n")
    return a, b


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edit())
def test_generated_edits_are_what_git_diff_writes(tmp_path, ab):
    """Byte for byte where git's alignment and difflib's coincide; where a change could sit at
    either of two equal lines (git's xdiff slides it by its indent heuristic, difflib keeps the
    first match) the headers are still git's, and git applies ours to exactly the new text."""
    a, b = ab
    assume(a != b)
    shown = "dir with space/naïve\nname.py"
    ours = file_patch(shown, a, b)
    theirs = git_patch(tmp_path, shown, a.encode(), b.encode())
    figure("git diff --no-index (generated edits, byte-equal)", ours == theirs)
    head = ours.split(b"\n@@ ")[0]
    assert head == theirs.split(b"\n@@ ")[0]
    target = tmp_path / shown
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(a.encode())
    done = subprocess.run(["git", "apply", "-"], cwd=tmp_path, input=ours, env=GIT_ENV,
                          capture_output=True, check=False)
    applied = target.read_bytes() if done.returncode == 0 else None
    shutil.rmtree(tmp_path / "dir with space")
    figure("git apply (generated edits, result == new)", applied == b.encode())
    assert done.returncode == 0 and applied == b.encode(), done.stderr
