"""Test kit for the assistant's loop: play the assistant through `stepsmith mcp` with the MCP
SDK's own client over stdio, and the person through the real CLI (`stepsmith review`,
`stepsmith test`, `stepsmith check --fix`). Shared by tests/mcp (loaded as `agent_kit` by
tests/conftest.py).

Nothing here knows a right answer: the assistant acts only on the structured results the
tools return (problems, fix edits, results), the person only on the CLI's exit codes and JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CLI = [sys.executable, "-m", "stepsmith.runner.cli"]


def server(root: Path, *extra: str):
    """`stepsmith mcp ROOT` as a client would start it (stdio). (The SDK is imported here:
    tests/conftest.py loads this kit for every suite.)"""
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, cwd=str(root),
                                 args=["-m", "stepsmith.runner.cli", "mcp", *extra, str(root)])


@asynccontextmanager
async def assistant(root: Path, **client_options):
    """An MCP client session on `stepsmith mcp ROOT`, wrapped as an :class:`Assistant`."""
    from mcp import Client

    async with Client(server(root), **client_options) as client:
        yield Assistant(root, client)


@dataclass
class Done:
    """One completed call: the tool, its arguments, and what it answered."""

    tool: str
    args: dict
    is_error: bool
    structured: dict | None
    text: str


def cli(root: Path, *argv: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """The real `stepsmith` command line, run in `root` (the person at their terminal)."""
    return subprocess.run([*CLI, *argv], cwd=root, capture_output=True, text=True,
                          timeout=timeout, check=False)


def init(parent: Path, name: str) -> Path:
    """A fresh `stepsmith init NAME` in `parent`; its folder."""
    p = cli(parent, "init", name)
    assert p.returncode == 0, p.stderr
    return parent / name


def fresh_workspace(tmp_path: Path, name: str = "wf") -> Path:
    """`tmp_path/ws` holding a fresh `stepsmith init NAME`: the workspace root."""
    root = tmp_path / "ws"
    root.mkdir()
    init(root, name)
    return root


def apply_edits(root: Path, edits: list[dict]) -> None:
    """Apply fix edits as the tools' contract says: line 1-based, column 0-based in code
    points, end exclusive; every position refers to the file before any of them."""
    by_file: dict[str, list[dict]] = {}
    for e in edits:
        by_file.setdefault(e["path"], []).append(e)
    for rel, es in by_file.items():
        path = root / rel
        lines = path.read_text().splitlines(keepends=True)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line))
        text = "".join(lines)

        def off(line: int, col: int) -> int:
            return min(starts[min(line, len(lines) + 1) - 1] + col, len(text))

        for e in sorted(es, key=lambda e: (e["line"], e["column"]), reverse=True):
            a, b = off(e["line"], e["column"]), off(e["end_line"], e["end_column"])
            text = text[:a] + e["new_text"] + text[b:]
        path.write_text(text)


@dataclass
class Assistant:
    """The assistant's side of the loop, over MCP only."""

    root: Path
    client: Any  # mcp.Client
    calls: list[Done] = field(default_factory=list)

    async def call(self, tool: str, args: dict | None = None, **options) -> Done:
        res = await self.client.call_tool(tool, args or {}, **options)
        text = "\n".join(getattr(c, "text", "") for c in res.content)
        done = Done(tool, dict(args or {}), bool(res.is_error), res.structured_content, text)
        self.calls.append(done)
        return done

    async def ok(self, tool: str, args: dict | None = None, **options) -> dict:
        """The tool's structured answer; fails the test with the tool's reason on an error."""
        done = await self.call(tool, args, **options)
        assert not done.is_error, f"{tool}({args}) refused: {done.text}"
        assert done.structured is not None, f"{tool}: no structured answer"
        return done.structured

    def draft(self, files: dict[str, str]) -> None:
        """Write the draft (the assistant's own file edits, relative to the root)."""
        for rel, text in files.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)

    async def fix_until_clean(self, paths: list[str] | None = None, *, guesses: bool = False,
                              redraft: Callable[[list[dict]], bool] | None = None,
                              rounds: int = 12) -> list[tuple[str, str]]:
        """`check`, apply the preferred fix of the first problem that has a SAFE one, `check`
        again, until clean. With no safe fix left: `guesses` applies the first fix offered, a
        guess (a did-you-mean the assistant agrees with; a guess is never `preferred`); else `redraft(problems)` is the assistant
        editing its draft from the messages (True when it changed something). Returns what
        was done, in order: (rule code, "safe" | "guess" | "redraft"). Fails when stuck."""
        done: list[tuple[str, str]] = []
        args = {"paths": paths} if paths else {}
        for _ in range(rounds):
            out = await self.ok("check", args)
            if out["clean"]:
                return done
            problems = out["problems"]
            safe = [p for p in problems if p["fixes"] and p["fixes"][0]["safe"]]
            guess = [p for p in problems if p["fixes"]]
            if safe:
                apply_edits(self.root, safe[0]["fixes"][0]["edits"])
                done.append((safe[0]["code"], "safe"))
            elif guesses and guess:
                apply_edits(self.root, guess[0]["fixes"][0]["edits"])
                done.append((guess[0]["code"], "guess"))
            elif redraft is not None and redraft(problems):
                done.append((problems[0]["code"], "redraft"))
            else:
                raise AssertionError("stuck: no fix for "
                                     f"{[(p['code'], p['message']) for p in problems]}")
        raise AssertionError("check never became clean")


@dataclass
class Person:
    """The person's side: the real CLI, run in the root."""

    root: Path

    def run(self, *argv: str) -> subprocess.CompletedProcess:
        return cli(self.root, *argv)

    def accept_all(self, *paths: str) -> subprocess.CompletedProcess:
        return self.run("review", "--accept", *(paths or (".",)))

    def test_json(self, *paths: str) -> tuple[int, dict]:
        p = self.run("test", "--format", "json", *(paths or (".",)))
        try:
            return p.returncode, json.loads(p.stdout)
        except ValueError as exc:
            raise AssertionError(f"stepsmith test printed no JSON ({p.returncode}):\n"
                                 f"{p.stdout}\n{p.stderr}") from exc


@dataclass
class LoopRecord:
    """What one pass of the assistant's loop did and saw, for the test to judge."""

    fixes: list[tuple[str, str]]  # (rule code, how) in the order applied
    run: dict  # run_step's structured answer
    proposal: dict  # propose_fixture's structured answer
    review: subprocess.CompletedProcess  # the person's `stepsmith review --accept`
    test_rc: int
    test: dict  # `stepsmith test --format json`
    check_rc: int  # the person's `stepsmith check` at the end


async def play_loop(root: Path, workflow: str, step: str, draft: dict[str, str],
                    inputs: dict, case: str, *, evaluation_time: str | None = None,
                    fix_with: str = "mcp", guesses: bool = False,
                    redraft: Callable[[list[dict]], bool] | None = None) -> LoopRecord:
    """The whole loop on `root`: the assistant writes `draft`, makes `check` clean (MCP fix
    edits, or `stepsmith check --fix` when `fix_with == "cli"`; `guesses` and `redraft` as in
    `fix_until_clean`), runs the step, proposes its result as fixture `case`; then the person
    accepts it with `stepsmith review --accept` and runs `stepsmith test`."""
    async with assistant(root) as a:
        a.draft(draft)
        fixes: list[tuple[str, str]] = []
        if fix_with == "cli":
            argv = ["check", "--fix", "--show-fixes", *(["--unsafe-fixes"] if guesses else []),
                    workflow]
            fixed = cli(root, *argv)
            fixes.append(("check --fix", fixed.stdout + fixed.stderr))
        fixes += await a.fix_until_clean([workflow], guesses=guesses, redraft=redraft)
        at = {"evaluation_time": evaluation_time} if evaluation_time else {}
        run = await a.ok("run_step", {"workflow": workflow, "step": step, "inputs": inputs,
                                      **at})
        proposal = await a.ok("propose_fixture", {"workflow": workflow, "step": step,
                                                  "name": case, "inputs": inputs, **at})
    person = Person(root)
    review = person.accept_all(workflow)
    rc, doc = person.test_json(workflow)
    return LoopRecord(fixes, run, proposal, review, rc, doc,
                      person.run("check", workflow).returncode)
