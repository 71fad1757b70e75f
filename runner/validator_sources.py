"""The source files of the validator and of the runner modules it is built on, by module name:
what a pinned interpreter's helper process runs (pythons/checker.py), so it validates with the
very code the runner checks with, and what a runtime identity covers (sandbox.runtime_identity:
the validator decides a step may run)."""

from __future__ import annotations

from pathlib import Path

_RUNNER = Path(__file__).resolve().parent


def validator_files(runner: Path = _RUNNER) -> list[tuple[str, Path]]:
    """(module name, path) for the validator and the runner modules it is built on, in the
    `runner` folder (this one; a copy of it in the runtime-identity tests)."""
    out: list[tuple[str, Path]] = []
    problems = runner / "problems.py"
    if problems.is_file():
        out.append(("stepsmith.runner.problems", problems))
    for pkg in ("rules", "validator"):
        root = runner / pkg
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(runner).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out.append((".".join(["stepsmith", "runner", *parts]), path))
    return out
