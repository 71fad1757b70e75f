"""Shell completion scripts for bash, zsh and fish, generated from stepsmith's own argparse
parser: the parser is the one source of truth, so a new flag or sub-command is completed
without touching these generators. (shtab writes bash and zsh from argparse but not fish;
one generator for the three keeps them alike.)

What is completed: sub-commands, each command's options (with their choices, e.g.
`--format text|json`), files for PATH/FILE arguments, and for `test`/`review` node ids
`wf::step::case` once the word has a `::` (asked of `stepsmith test --co`, so they are exact).

The ids are a cloned folder's data (its folder names; a fixture file whose name is not a case
name is never an id): no script evaluates them. bash matches them as plain text (never
`compgen -W "$ids"`, which expands `$(...)`, backticks and `${...}` in every word) and puts
them on the line quoted (`printf %q`); zsh adds them without `-Q`, so it quotes what it
inserts; fish quotes completions itself. tests/cli/test_cli_completion_hostile.py drives the
three shells with such names."""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field

SHELLS = ("bash", "zsh", "fish")
FILE_METAVARS = {"PATH", "FILE", "FILE|-", "FOLDER"}
NODE_ID_COMMANDS = ("test", "review")  # their PATHs take node ids


@dataclass
class Option:
    names: list[str]
    help: str
    takes_value: bool
    choices: list[str] | None = None
    files: bool = False


@dataclass
class Command:
    name: str
    help: str
    options: list[Option] = field(default_factory=list)
    files: bool = False  # a positional PATH (files and folders are offered)


def _summary(text: str | None) -> str:
    """The help's first clause, on one line (a completion menu shows one short line)."""
    text = " ".join((text or "").split())
    text = re.split(r"(?<=[a-z)])[;.] ", text, maxsplit=1)[0]
    return text if len(text) <= 70 else text[:69] + "…"


def _option(action: argparse.Action) -> Option:
    takes = action.nargs != 0
    meta = action.metavar if isinstance(action.metavar, str) else ""
    choices = [str(c) for c in action.choices] if action.choices else None
    return Option(list(action.option_strings), _summary(action.help), takes, choices,
                  takes and not choices and meta in FILE_METAVARS)


def _options(parser: argparse.ArgumentParser) -> list[Option]:
    return [_option(a) for a in parser._actions
            if a.option_strings and a.help != argparse.SUPPRESS]


def model(parser: argparse.ArgumentParser) -> tuple[list[Option], list[Command]]:
    """(the top-level options, the sub-commands) as the parser defines them."""
    commands: list[Command] = []
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {c.dest: c.help for c in action._choices_actions}
        for name, sub in action.choices.items():
            files = any(not a.option_strings and (a.metavar or "") in FILE_METAVARS
                        for a in sub._actions)
            commands.append(Command(name, _summary(helps.get(name)), _options(sub), files))
    return _options(parser), commands


def generate(shell: str, parser: argparse.ArgumentParser, prog: str = "stepsmith") -> str:
    top, commands = model(parser)
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](prog, top, commands)


# -- bash -----------------------------------------------------------------------------------
def _bash(prog: str, top: list[Option], commands: list[Command]) -> str:
    fn = "_" + re.sub(r"\W", "_", prog)
    words = " ".join([c.name for c in commands] + [n for o in top for n in o.names])
    cases = []
    for c in commands:
        values = [f'            {"|".join(o.names)}) COMPREPLY=($(compgen -W '
                  f'"{" ".join(o.choices)}" -- "$cur")); return ;;'
                  for o in c.options if o.takes_value and o.choices]
        files = [n for o in c.options if o.files for n in o.names]
        free = [n for o in c.options if o.takes_value and not o.choices and not o.files
                for n in o.names]
        if files:
            values.append(f"            {'|'.join(files)}) compopt -o filenames 2>/dev/null "
                          '|| true; mapfile -t COMPREPLY < <(compgen -f -- "$cur"); '
                          "return ;;")
        if free:
            values.append(f"            {'|'.join(free)}) return ;;  # a value: nothing to offer")
        opts = " ".join(n for o in c.options for n in o.names)
        rest = ("        if [[ $cur == *::* ]]; then " + fn + "_node_ids \"$cur\"; return; fi\n"
                if c.name in NODE_ID_COMMANDS else "")
        rest += ("        compopt -o filenames 2>/dev/null || true; "
                 'mapfile -t COMPREPLY < <(compgen -f -- "$cur")\n' if c.files else "")
        cases.append(f"    {c.name})\n"
                     + ('        case "$prev" in\n' + "\n".join(values) + "\n        esac\n"
                        if values else "")
                     + f'        if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "{opts}" -- '
                     '"$cur")); return; fi\n' + rest + "        ;;")
    return f"""# {prog} completion for bash, generated from its argument parser by
# `{prog} completion bash`. Load it with:  source <({prog} completion bash)
{fn}_node_ids() {{
    # workflow::step::case ids, exactly as `{prog} test --co` selects them: data, matched as
    # plain text (never `compgen -W`, which expands what it is given) and inserted quoted
    local cur="$1" id colon="" i
    local -a ids
    mapfile -t ids < <("${{COMP_WORDS[0]}}" test --co -- "${{cur%%::*}}" 2>/dev/null)
    for id in "${{ids[@]}}"; do
        [[ $id == *::* && $id == "$cur"* ]] && COMPREPLY+=("$id")
    done
    # bash splits the word at ':' (COMP_WORDBREAKS): offer only what follows the last one
    [[ $COMP_WORDBREAKS == *:* ]] && colon="${{cur%"${{cur##*:}}"}}"
    for i in "${{!COMPREPLY[@]}}"; do
        printf -v "COMPREPLY[i]" %q "${{COMPREPLY[i]#"$colon"}}"
    done
}}

{fn}() {{
    local line="${{COMP_LINE:0:COMP_POINT}}" cmd="" i
    # the word being completed, with any ':' in it (COMP_WORDS splits at them)
    local cur="${{line##*[[:space:]]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    COMPREPLY=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${{COMP_WORDS[i]}}" in -*) ;; *) cmd="${{COMP_WORDS[i]}}"; break ;; esac
    done
    case "$cmd" in
    "")
        COMPREPLY=($(compgen -W "{words}" -- "$cur")) ;;
{chr(10).join(cases)}
    esac
}}
complete -F {fn} {prog}
"""


# -- zsh ------------------------------------------------------------------------------------
DESCRIBE_SPECIALS = "[]\\:"


def _zq(text: str, specials: str = "[]\\") -> str:
    """Inside a single-quoted zsh word: `specials` backslash-escaped (an _arguments help in
    [...]: brackets; a _describe entry: its ':' separator too), quotes closed and reopened."""
    text = "".join("\\" + ch if ch in specials else ch for ch in text)
    return text.replace("'", "'\\''")


def _zsh_spec(o: Option) -> list[str]:
    value = ""
    if o.takes_value:
        value = (f":value:({' '.join(o.choices)})" if o.choices
                 else ":file:_files" if o.files else ":value: ")
    return [f"'{n}[{_zq(o.help)}]{value}'" for n in o.names]


def _zsh(prog: str, top: list[Option], commands: list[Command]) -> str:
    fn = "_" + re.sub(r"\W", "_", prog)
    described = "\n".join(f"        '{c.name}:{_zq(c.help, DESCRIBE_SPECIALS)}'"
                          for c in commands)
    top_specs = " \\\n        ".join(s for o in top for s in _zsh_spec(o))
    cases = []
    for c in commands:
        specs = [s for o in c.options for s in _zsh_spec(o)]
        if c.files:
            specs.append(f"'*:path:{fn}_paths'" if c.name in NODE_ID_COMMANDS
                         else "'*:path:_files'")
        body = " \\\n                ".join(specs)
        cases.append(f"        {c.name})\n            _arguments -s \\\n                {body} ;;")
    return f"""#compdef {prog}
# {prog} completion for zsh, generated from its argument parser by `{prog} completion zsh`.
# Load it with:  source <({prog} completion zsh)   (after compinit), or save it as
# _{prog} in a folder of $fpath.

{fn}_paths() {{
    if [[ $PREFIX == *::* ]]; then  # workflow::step::case, as `{prog} test --co` selects them
        local -a ids
        ids=(${{(f)"$({prog} test --co -- "${{(Q)PREFIX%%::*}}" 2>/dev/null)"}})
        ids=(${{(M)ids:#*::*}})
        compadd -a ids  # data: without -Q, zsh quotes what it inserts
    else
        _files
    fi
}}

{fn}() {{
    local -a commands
    commands=(
{described}
    )
    local curcontext="$curcontext" state line
    _arguments -C \\
        {top_specs} \\
        '1: :->command' \\
        '*:: :->args'
    case $state in
    command) _describe -t commands '{prog} command' commands ;;
    args)
        case $words[1] in
{chr(10).join(cases)}
        esac ;;
    esac
}}

if [[ $funcstack[1] == {fn} ]]; then
    {fn} "$@"
else
    compdef {fn} {prog}
fi
"""


# -- fish -----------------------------------------------------------------------------------
def _fq(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish_option(prog: str, cond: str, o: Option) -> str:
    parts = [f"complete -c {prog} -n {_fq(cond)}"]
    for n in o.names:
        parts.append(f"-l {n[2:]}" if n.startswith("--") else f"-s {n[1:]}")
    if o.takes_value:
        parts.append(f"-x -a {_fq(' '.join(o.choices))}" if o.choices
                     else "-r -F" if o.files else "-x")
    parts.append(f"-d {_fq(o.help)}")
    return " ".join(parts)


def _fish(prog: str, top: list[Option], commands: list[Command]) -> str:
    fn = "__" + re.sub(r"\W", "_", prog) + "_node_ids"
    lines = [f"# {prog} completion for fish, generated from its argument parser by",
             f"# `{prog} completion fish`. Load it with:  {prog} completion fish | source",
             f"complete -c {prog} -e", f"complete -c {prog} -f",
             f"function {fn}  # workflow::step::case, as `{prog} test --co` selects them",
             "    set -l cur (commandline -ct | string unescape)",
             "    string match -q '*::*' -- $cur; or return",
             (f"    {prog} test --co -- (string replace -r '::.*' '' -- $cur) 2>/dev/null"
              " | string match -- '*::*'"),
             "end"]
    first = "__fish_use_subcommand"
    lines += [_fish_option(prog, first, o) for o in top]
    lines += [f"complete -c {prog} -n {first} -a {c.name} -d {_fq(c.help)}" for c in commands]
    for c in commands:
        cond = f"__fish_seen_subcommand_from {c.name}"
        lines += [_fish_option(prog, cond, o) for o in c.options]
        ids = c.name in NODE_ID_COMMANDS
        if c.files:  # a word with '::' is a node id, not a file
            no_id = "; and not string match -q '*::*' -- (commandline -ct)" if ids else ""
            lines.append(f"complete -c {prog} -n {_fq(cond + no_id)} -F")
        if ids:
            lines.append(f"complete -c {prog} -n {_fq(cond)} -a {_fq('(' + fn + ')')}")
    return "\n".join(lines) + "\n"
