"""The hard limits of one step invocation (SPEC: limits table), with the spec's defaults.

Plain data in the base: the sandbox enforces them (runner/sandbox re-exports `Limits`) and the
project settings lower them (runner/settings.py), so neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Hard limits of one step invocation (SPEC: limits table)."""

    cpu_seconds: int = 2  # RLIMIT_CPU (soft = hard) inside the sandbox: SIGKILL when spent
    wall_seconds: float = 5.0  # the parent kills the whole process group
    memory_bytes: int = 256 * 1024 * 1024  # RLIMIT_AS
    input_bytes: int = 512 * 1024  # refused before the sandbox starts
    output_bytes: int = 256 * 1024  # the parent stops reading and kills
    stdout_chars: int = 64 * 1024  # captured print() text kept in the result

    def to_json(self) -> dict:
        return {
            "cpu_seconds": self.cpu_seconds, "wall_seconds": self.wall_seconds,
            "memory_bytes": self.memory_bytes, "input_bytes": self.input_bytes,
            "output_bytes": self.output_bytes, "stdout_chars": self.stdout_chars,
        }
