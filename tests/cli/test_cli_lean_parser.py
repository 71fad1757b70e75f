"""A command line imports only the module of the command it names; the
other commands are listed from runner/cli/__init__.py's LISTED table, which must say exactly
what their modules register (names, order, help lines)."""

import subprocess
import sys

import pytest
from stepsmith.runner import cli


def _commands(parser):
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return [(c.dest, c.help) for c in sub._choices_actions]


def test_the_listed_commands_are_what_the_modules_register():
    listed = [(name, line) for names in cli.LISTED.values() for name, line in names.items()]
    assert list(cli.LISTED) == cli.COMMANDS
    assert _commands(cli.build_parser()) == listed


def test_the_lean_top_level_parser_shows_the_same_help():
    full = cli.build_parser()
    assert cli.build_parser(only="").format_help() == full.format_help()
    assert _commands(cli.build_parser(only="")) == _commands(full)


@pytest.mark.parametrize("only", cli.COMMANDS)
def test_a_commands_parser_is_the_same_as_in_the_whole_parser(only):
    def parsers(p):
        sub = next(a for a in p._actions if a.__class__.__name__ == "_SubParsersAction")
        return sub.choices

    lean, full = parsers(cli.build_parser(only=only)), parsers(cli.build_parser())
    assert set(lean) == set(cli.LISTED[only])
    for command in lean:
        assert lean[command].format_help() == full[command].format_help()


@pytest.mark.parametrize("argv, module", [
    (["--version"], ""), (["--help"], ""), ([], ""), (["check", "x"], "check_command"),
    (["--show-settings", "test", "."], "test"), (["rule", "SS201"], "rules"),
    (["run-workflow", "wf"], "run_workflow"), (["chek"], None), (["--help", "check"], ""),
    (["check", "--help"], "check_command")])
def test_the_module_a_command_line_names(argv, module):
    assert cli._module_named(argv) == module


def cli_modules_after(*argvs: list[str]) -> str:
    """The `stepsmith.runner.cli.*` modules a fresh interpreter holds after these command lines."""
    code = ("import sys, contextlib, io\n"
            "from stepsmith.runner.cli import main\n"
            f"for argv in {list(argvs)!r}:\n"
            "    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
            "        main(argv)\n"
            "print(sorted(m for m in sys.modules if m.startswith('stepsmith.runner.cli.')))\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60).stdout


def test_version_and_help_import_no_command_module():
    assert cli_modules_after(["--version"], ["--help"]).strip() == "[]"


def test_a_command_imports_its_module_alone():
    out = cli_modules_after(["rule", "SS201"])
    assert "'stepsmith.runner.cli.rules'" in out
    assert not any(f"'stepsmith.runner.cli.{m}'" in out for m in cli.COMMANDS if m != "rules")
