"""Runs the documentation's examples as written (docs/guide.md's ```sh blocks, docs/ci.md's
```console blocks): the fenced blocks of a page, the environment a reader's shell has (this
checkout's `stepsmith` first on PATH, git without the machine's configuration), and a console
block's commands run one by one with what each printed on stdout.

A console block runs in a scratch folder; an HTML comment `<!-- console-setup ... -->` right
before it holds the shell lines that prepare a fresh one (`$EXAMPLES` is this checkout's
examples/ folder); a block without one goes on in the folder and the directory the block
before it left."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_MARK = "\x1e\x1estepsmith-doc-command\x1e"


def fenced(text: str, info: str) -> list[str]:
    """The bodies of the ```<info> blocks of a markdown page, in order."""
    return re.findall(rf"^```{re.escape(info)}\n(.*?)^```", text, re.S | re.M)


def reader_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "CI")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(COLUMNS="120", HOME=str(home), GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="Reader", GIT_AUTHOR_EMAIL="reader@example.com",
               GIT_COMMITTER_NAME="Reader", GIT_COMMITTER_EMAIL="reader@example.com",
               EXAMPLES=str(REPO / "examples"), STEPSMITH_NO_CACHE="1")
    return env


@dataclass
class Command:
    line: str  # as shown after "$ "
    shown: list[str]  # the lines shown as its output
    printed: list[str] = field(default_factory=list)  # what it really printed


@dataclass
class ConsoleBlock:
    setup: str | None  # the console-setup comment's lines; None: go on from the block before
    commands: list[Command]


def console_blocks(text: str) -> list[ConsoleBlock]:
    blocks = []
    pattern = r"(?:<!-- console-setup\n(?P<setup>.*?)-->\n)?^```console\n(?P<body>.*?)^```"
    for m in re.finditer(pattern, text, re.S | re.M):
        commands: list[Command] = []
        for line in m["body"].splitlines():
            if line.startswith("$ "):
                commands.append(Command(line[2:], []))
            else:
                assert commands, f"output before any command in a console block: {line!r}"
                commands[-1].shown.append(line)
        blocks.append(ConsoleBlock(m["setup"], commands))
    return blocks


def run_console(blocks: list[ConsoleBlock], scratch: Path) -> str:
    """Run every block's commands (each `printed` filled in); returns the stderr of them all.
    Each command sees the exit status of the one before it, as in a shell."""
    errors = []
    cwd, n = None, 0
    for block in blocks:
        if block.setup is not None:
            n += 1
            cwd = scratch / f"block{n}"
            cwd.mkdir(parents=True)
            lines = ["set -e", block.setup, "set +e", "__rc=0"]
        else:
            assert cwd is not None, "the first console block needs a console-setup comment"
            lines = ["__rc=0"]
        for c in block.commands:
            lines.append(f"printf '%s' '{_MARK}'; (exit $__rc); {c.line}; __rc=$?")
        lines.append(f"printf '%s' '{_MARK}'; pwd")
        done = subprocess.run(["bash", "-c", "\n".join(lines)], cwd=cwd, capture_output=True,
                              text=True, env=reader_env(scratch), timeout=600, check=False)
        parts = done.stdout.split(_MARK)
        assert len(parts) == len(block.commands) + 2, (done.stdout, done.stderr)
        for c, out in zip(block.commands, parts[1:]):
            c.printed = out.splitlines()
        cwd = Path(parts[-1].strip())
        errors.append(done.stderr)
    return "".join(errors)
