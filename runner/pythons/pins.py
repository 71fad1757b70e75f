"""A manifest's `python:` pin: `"3.13"` (any 3.13.x) or `"3.13.5"` (that release only)."""

from __future__ import annotations

from dataclasses import dataclass

from stepsmith.runner.model.grammar import is_python_pin

from .probe import running


@dataclass(frozen=True)
class Pin:
    major: int
    minor: int
    micro: int | None = None  # None: any release of major.minor

    @classmethod
    def parse(cls, text: object) -> Pin | None:
        """"3.X" or "3.X.Y" (the grammar's PYTHON_PATTERN), else None."""
        if not is_python_pin(text):
            return None
        parts = str(text).split(".")
        return cls(3, int(parts[1]), int(parts[2]) if len(parts) == 3 else None)

    @property
    def minor_text(self) -> str:
        return f"{self.major}.{self.minor}"

    def __str__(self) -> str:
        return self.minor_text + ("" if self.micro is None else f".{self.micro}")

    def matches(self, version: tuple[int, ...]) -> bool:
        if tuple(version[:2]) != (self.major, self.minor):
            return False
        return self.micro is None or version[2] == self.micro


def mismatch(python: str | None, interp) -> str | None:
    """Why `interp` (a pythons.Interpreter; None: the running interpreter) cannot run a
    workflow pinned to `python`; None when it can (or there is no pin)."""
    if not python:
        return None

    have = interp or running()
    pin = Pin.parse(str(python))
    if pin is not None and pin.matches(have.version):
        return None
    return (f"the workflow pins python {python!r} but the sandbox interpreter is "
            f"Python {have.release} ({have.exe}); nothing was run")
