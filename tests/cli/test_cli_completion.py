"""`stepsmith completion bash|zsh|fish` prints a script generated from the argparse
parser. Each script is loaded into the real shell and asked to complete: bash through its
completion function (COMP_WORDS/COMP_LINE as bash sets them), fish through `complete -C`, zsh
by pressing TAB in an interactive zsh on a pseudo-terminal. A flag added to the parser is
completed without touching the generator (one source of truth)."""

import re
import subprocess
from pathlib import Path

import pytest
from completion_kit import BIN, ZSH_DRIVER, _env, _needs, _script
from stepsmith.runner.cli import build_parser, main
from stepsmith.runner.cli.completion_scripts import generate


def bash_complete(script: str, line: str, cwd=None) -> list[str]:
    """What the completion function offers for `line` (the cursor at its end)."""
    words = line.split(" ")  # a trailing space makes the empty word being completed
    prog = ["set -eu", script,
            "COMP_WORDS=(" + " ".join(f"'{w}'" for w in words) + ")",
            f"COMP_CWORD={len(words) - 1}", f"COMP_LINE='{line}'", f"COMP_POINT={len(line)}",
            "COMP_WORDS[0]=" + str(BIN / "stepsmith"),
            "_stepsmith", 'printf "%s\\n" "${COMPREPLY[@]}"']
    p = subprocess.run(["bash", "-c", "\n".join(prog)], capture_output=True, text=True,
                       cwd=cwd, env=_env(), timeout=60, check=False)
    assert p.returncode == 0, p.stderr
    return [x for x in p.stdout.splitlines() if x]


@pytest.fixture
def workflow(tmp_path, kit):
    kit.write_workflow(tmp_path / "wf", fixtures={
        "add/simple": kit.add_case("1.00", None, "1.50"),
        "add/both": kit.add_case("1.00", "2.25", "3.25")})
    return tmp_path


def test_bash_registers_and_completes_commands_flags_and_values(capsys, workflow):
    script = _script("bash", capsys)
    p = subprocess.run(["bash", "-c", script + "\ncomplete -p stepsmith"], capture_output=True,
                       text=True, timeout=60, check=False)
    assert p.stdout.strip() == "complete -F _stepsmith stepsmith", p.stderr
    assert bash_complete(script, "stepsmith te") == ["test"]
    assert bash_complete(script, "stepsmith re") == ["reach", "record", "replay", "review"]
    flags = bash_complete(script, "stepsmith test --s")
    assert {"--sw", "--sw-skip", "--stepwise", "--step", "--strict", "--shard"} <= set(flags)
    assert all(f.startswith("--s") for f in flags)
    assert bash_complete(script, "stepsmith test --format ") == ["text", "json"]
    assert bash_complete(script, "stepsmith check --output-format js") == ["json", "json-lines"]
    assert bash_complete(script, "stepsmith test -j ") == []  # a number: nothing offered
    assert bash_complete(script, "stepsmith test w", cwd=workflow) == ["wf"]  # files
    assert bash_complete(script, "stepsmith --sh") == ["--show-settings"]


def test_bash_completes_node_ids(capsys, workflow):
    script = _script("bash", capsys)
    # bash splits the word at ':', so only what follows the last ':' is offered
    assert bash_complete(script, "stepsmith test wf::add::", cwd=workflow) == ["both", "simple"]
    assert bash_complete(script, "stepsmith test wf::add::s", cwd=workflow) == ["simple"]
    assert bash_complete(script, "stepsmith review wf::a", cwd=workflow) == [
        "add::both", "add::simple"]


def test_a_new_flag_is_completed_without_touching_the_generator():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and "test" in a.choices)
    sub.choices["test"].add_argument("--brand-new", choices=("one", "two"), help="new")
    script = generate("bash", parser)
    assert "--brand-new" in bash_complete(script, "stepsmith test --b")
    assert bash_complete(script, "stepsmith test --brand-new ") == ["one", "two"]
    assert "-l brand-new -x -a 'one two'" in generate("fish", parser)
    assert "'--brand-new[new]:value:(one two)'" in generate("zsh", parser)


@_needs("fish")
def test_fish_completes_commands_flags_values_and_node_ids(capsys, workflow):
    script = workflow / "stepsmith.fish"
    script.write_text(_script("fish", capsys))
    assert subprocess.run(["fish", "--no-execute", str(script)], check=False).returncode == 0

    def fish(line):
        p = subprocess.run(["fish", "--no-config", "-c", f"source {script}; complete -C '{line}'"],
                           capture_output=True, text=True, cwd=workflow, env=_env(),
                           timeout=60, check=False)
        assert p.returncode == 0, p.stderr
        return [x.split("\t")[0] for x in p.stdout.splitlines()]

    assert fish("stepsmith te") == ["test"]
    assert {"--sw", "--sw-skip", "--stepwise", "--strict"} <= set(fish("stepsmith test --s"))
    assert sorted(fish("stepsmith test --format ")) == ["json", "text"]
    assert "wf/" in fish("stepsmith check w")
    assert sorted(fish("stepsmith test wf::add::")) == ["wf::add::both", "wf::add::simple"]


@_needs("zsh")
def test_zsh_lists_the_flags_of_test_on_tab(capsys, workflow):
    script = workflow / "_stepsmith"
    script.write_text(_script("zsh", capsys))
    assert subprocess.run(["zsh", "-n", str(script)], check=False).returncode == 0
    load = subprocess.run(
        ["zsh", "-f", "-c", (f"autoload -U compinit; compinit -u -d {workflow}/zcd; "
                             f"source {script}; print -r -- $_comps[stepsmith]")],
        capture_output=True, text=True, timeout=60, check=False)
    assert load.stdout.strip() == "_stepsmith", load.stderr

    def tab(line, until):
        p = subprocess.run(["zsh", "-f", str(ZSH_DRIVER), str(script), str(BIN), line, until],
                           capture_output=True, text=True, cwd=workflow, timeout=90,
                           check=False)
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", p.stdout)

    listing = tab("stepsmith test --s", "--strict")
    for flag in ("--sw-skip", "--stepwise", "--strict", "--shard"):
        assert flag in listing, listing
    assert "stop at the first failure" in listing  # the option's help, from the parser
    assert "stepsmith test --format json" in tab("stepsmith test --format js", "--format json")


def test_the_command_is_documented(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "print a shell completion script (bash, zsh, fish)" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["completion", "--help"])
    out = capsys.readouterr().out
    assert "source <(stepsmith completion bash)" in out
    assert "stepsmith completion fish | source" in out
    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide.md").read_text()
    assert "stepsmith completion bash" in guide
