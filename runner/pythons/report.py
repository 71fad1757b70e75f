"""A workflow's `python:` pin and what it names here, as every front end shows it (the CLI's
`stepsmith python` and `reach`, hovers, the editor's status bar)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class WorkflowPython:
    """A workflow's `python:` pin and what it names here."""

    manifest: Path
    pin: str | None  # None: the manifest does not say (or cannot be read)
    interpreter: object = None  # pythons.Interpreter
    problem: str | None = None  # why there is none (SM501's text)

    @property
    def ok(self) -> bool:
        return self.interpreter is not None

    def summary(self) -> str:
        """One line: `python "3.13": Python 3.13.5 at /usr/bin/python3.13` or why not."""
        if self.pin is None:
            return "python: not pinned (the manifest has no valid `python:`)"
        head = f'python "{self.pin}"'
        if self.interpreter is None:
            return f"{head}: {self.problem}"
        i = self.interpreter
        running = " (the interpreter stepsmith runs on)" if i.running else ""
        return f"{head}: Python {i.release} at {i.exe}{running}"

    def to_json(self) -> dict:
        i = self.interpreter
        return {"manifest": str(self.manifest), "pin": self.pin,
                "interpreter": None if i is None else {
                    "path": i.exe, "version": i.release, "build": i.build,
                    "running": bool(i.running)},
                "problem": self.problem}
