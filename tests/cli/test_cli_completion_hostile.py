"""TAB completion never evaluates data, in the three real shells.

A cloned folder's file names reach the completion scripts through `stepsmith test --co`. Two
layers, each tested on its own:
- a fixture whose file name is not a valid case name is never a node id (not in `--co`, not
  completed): it is reported as a problem with its path (`stepsmith test`, `check`'s SF009);
- what the listing does hold (a workflow folder's name is the user's data too) is matched
  without expansion and inserted quoted: bash `compgen -W "$ids"` expanded `$(...)`, backticks
  and `${...}` in every word; zsh's `compadd -Q` put names on the line raw.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from completion_kit import BIN, ZSH_DRIVER, _env, _needs, _script
from stepsmith.runner.cli import main

HOSTILE = ["$(id>PWNED1)", "`id>PWNED2`", "${HOME}x"]
FOLDER = "w$(id>PWNED3)`id>PWNED4`${HOME}"  # a workflow folder's name


def _markers(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("PWNED*"))


def _workflow(kit, folder: Path) -> Path:
    kit.write_workflow(folder, fixtures={
        "add/simple": kit.add_case("1.00", None, "1.50"),
        "add/both": kit.add_case("1.00", "2.25", "3.25")})
    return folder


@pytest.fixture
def hostile_names(tmp_path, kit):
    """wf/ whose step `add` has two fixtures and three whose names are shell code."""
    wf = _workflow(kit, tmp_path / "wf")
    for name in HOSTILE:
        shutil.copy(wf / "fixtures" / "add" / "simple.json", wf / "fixtures" / "add" / f"{name}.json")
    return tmp_path


@pytest.fixture
def hostile_folder(tmp_path, kit):
    _workflow(kit, tmp_path / FOLDER)
    return tmp_path


def bash_complete(script: str, word: str, cwd: Path, wordbreaks: str | None = None) -> list[str]:
    """COMPREPLY for `stepsmith test WORD<TAB>` (COMP_WORDS as bash sets them, WORD raw)."""
    q = "'" + word.replace("'", "'\\''") + "'"
    line = f"stepsmith test {word}"
    prog = [script, f"COMP_WORDS=(stepsmith test {q})", "COMP_CWORD=2",
            "COMP_LINE='stepsmith test '" + q, f"COMP_POINT={len(line)}",
            "COMP_WORDS[0]=" + str(BIN / "stepsmith")]
    if wordbreaks is not None:
        prog.append(f"COMP_WORDBREAKS='{wordbreaks}'")
    prog += ["_stepsmith", 'printf "%s\\n" "${COMPREPLY[@]}"']
    p = subprocess.run(["bash", "-c", "\n".join(prog)], capture_output=True, text=True,
                       cwd=cwd, env=_env(), timeout=60, check=False)
    assert p.returncode == 0, p.stderr
    return [x for x in p.stdout.splitlines() if x]


def test_a_bad_fixture_name_is_never_a_node_id_only_a_problem(hostile_names, monkeypatch,
                                                              capsys):
    monkeypatch.chdir(hostile_names)
    assert main(["test", "--co", "--format", "json", "wf"]) == 0
    ids = json.loads(capsys.readouterr().out)["selected"]
    assert ids == ["wf::add::both", "wf::add::simple", "wf::(fixture files)"]
    assert main(["test", "wf"]) == 1
    out = capsys.readouterr()
    for name in HOSTILE:
        assert (f"wf/fixtures/add/{name}.json: the file name '{name}' is not a valid case "
                "name") in out.out + out.err
    assert main(["check", "--output-format", "json", "wf"]) == 1
    found = json.loads(capsys.readouterr().out)["problems"]
    assert sorted((p["code"], Path(p["path"]).name) for p in found) == sorted(
        ("SF009", f"{name}.json") for name in HOSTILE)
    assert _markers(hostile_names) == []


def test_bash_never_evaluates_fixture_names(capsys, hostile_names):
    script = _script("bash", capsys)
    assert bash_complete(script, "wf::add::", hostile_names) == ["both", "simple"]
    assert bash_complete(script, "wf::", hostile_names) == [
        "add::both", "add::simple", "\\(fixture\\ files\\)"]
    assert _markers(hostile_names) == []


def _as_bash_reads_it(reply: str, cwd: Path) -> str:
    """The word `reply` is on the command line: what bash makes of it."""
    p = subprocess.run(["bash", "-c", f"printf '%s' {reply}"], capture_output=True, text=True,
                       cwd=cwd, timeout=60, check=False)
    return p.stdout


def test_bash_matches_listed_data_without_expansion_and_inserts_it_quoted(capsys,
                                                                          hostile_folder):
    script = _script("bash", capsys)
    assert bash_complete(script, f"{FOLDER}::add::", hostile_folder) == ["both", "simple"]
    assert _markers(hostile_folder) == []
    # a word bash does not split at ':': the whole id is inserted, quoted
    replies = bash_complete(script, f"{FOLDER}::add::b", hostile_folder, wordbreaks=" \t\n")
    assert len(replies) == 1 and replies[0] != f"{FOLDER}::add::both"
    assert _as_bash_reads_it(replies[0], hostile_folder) == f"{FOLDER}::add::both"
    assert _markers(hostile_folder) == []


@_needs("fish")
@pytest.mark.parametrize("where", ["names", "folder"])
def test_fish_never_evaluates_data(capsys, hostile_names, hostile_folder, where):
    root = hostile_names if where == "names" else hostile_folder
    folder = "wf" if where == "names" else FOLDER
    script = root / "stepsmith.fish"
    script.write_text(_script("fish", capsys))
    # the word as fish users type it: quoted (`string escape`)
    p = subprocess.run(["fish", "--no-config", "-c",
                        (f"source {script}; "
                         "complete -C 'stepsmith test '(string escape -- $argv[1])'::add::'"),
                        folder],
                       capture_output=True, text=True, cwd=root, env=_env(), timeout=60,
                       check=False)
    assert p.returncode == 0, p.stderr
    got = sorted(x.split("\t")[0] for x in p.stdout.splitlines())
    assert got == [f"{folder}::add::both", f"{folder}::add::simple"]
    assert _markers(root) == []


def _zsh_tab(script: Path, cwd: Path, line: str, until: str) -> str:
    p = subprocess.run(["zsh", "-f", str(ZSH_DRIVER), str(script), str(BIN), line, until],
                       capture_output=True, text=True, cwd=cwd, timeout=90, check=False)
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", p.stdout)


@_needs("zsh")
def test_zsh_lists_no_bad_name_and_inserts_ids_quoted(capsys, hostile_names, hostile_folder):
    script = hostile_names / "_stepsmith"
    script.write_text(_script("zsh", capsys))
    listing = _zsh_tab(script, hostile_names, "stepsmith test wf::add::", "simple")
    assert "both" in listing and "simple" in listing
    assert "PWNED" not in listing and "${HOME}" not in listing
    # a name zsh must quote: the folder's, completed from a quoted prefix
    quoted = re.sub(r"([$()`{}>])", r"\\\1", FOLDER)
    shown = _zsh_tab(script, hostile_folder, f"stepsmith test {quoted}::add::b", "::add::both")
    assert _markers(hostile_names) == []
    assert f"{quoted}::add::both" in shown, shown
