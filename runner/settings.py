"""Project settings: `[tool.stepsmith]` in pyproject.toml, or a `stepsmith.toml` (top-level
keys), found upward from the path a command is given (as ruff finds its configuration).

    [tool.stepsmith]
    paths = ["workflows"]          # default PATHs of check / test / reach
    jobs = 2                       # parallel sandboxes of `stepsmith test`
    pythons = {"3.13" = "/opt/py313/bin/python3.13"}   # where a pinned Python is
    [tool.stepsmith.limits]        # per step invocation; only ever lowered
    cpu_seconds = 2
    wall_seconds = 5
    memory_mb = 256
    output_kb = 256

The limits default to the engine's values, which are also their hard ceiling: a step that
passed locally with more room would fail in the engine. An unknown setting, a value of the
wrong type or a limit above its ceiling is a usage error (exit 2) naming it.

A cloned folder's settings are untrusted input (issue 18): the file is read through
runner/safeio.py (a regular file whose real path lies in its own folder, at most CONFIG_CAP
bytes), and every `paths` entry must lie inside that folder, the project folder, so a bare
`stepsmith test` there never runs or writes pending changes anywhere else. A `pythons` path is
a program stepsmith runs: it must be absolute and lie outside the project folder (a repository
cannot ship the interpreter its settings name), and runner/pythons/discover.py runs it only if
root or the user alone can change it.
"""

from __future__ import annotations

import difflib
import os
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stepsmith.runner import safeio
from stepsmith.runner.errors import UsageError
from stepsmith.runner.limits import Limits
from stepsmith.runner.model.grammar import is_python_pin

# the engine's limits (runner/limits.py), in the units users write
_ENGINE = Limits()
ENGINE_LIMITS = {"cpu_seconds": _ENGINE.cpu_seconds, "wall_seconds": _ENGINE.wall_seconds,
                 "memory_mb": _ENGINE.memory_bytes // (1024 * 1024),
                 "output_kb": _ENGINE.output_bytes // 1024}
LIMIT_MINIMUM = {"cpu_seconds": 1, "wall_seconds": 0.5, "memory_mb": 64, "output_kb": 1}
MAX_JOBS = 64
TOP_KEYS = ("paths", "jobs", "limits", "pythons")
CONFIG_CAP = 1024 * 1024  # a pyproject.toml is a few KiB; this only stops a hostile one


class SettingsError(UsageError):
    """A bad configuration file (the CLI exits 2 with this message)."""


@dataclass
class Settings:
    source: Path | None = None  # the file the settings came from
    paths: list[str] = field(default_factory=lambda: ["."])
    jobs: int | None = None
    limits: dict[str, float] = field(default_factory=lambda: dict(ENGINE_LIMITS))
    origin: dict[str, str] = field(default_factory=dict)  # dotted key -> where it came from
    pythons: dict[str, str] = field(default_factory=dict)  # pinned version -> interpreter path

    def sandbox_limits(self) -> Limits:
        """The limits of one step invocation: the engine's, lowered by these settings."""
        return Limits(cpu_seconds=int(self.limits["cpu_seconds"]),
                      wall_seconds=float(self.limits["wall_seconds"]),
                      memory_bytes=int(self.limits["memory_mb"] * 1024 * 1024),
                      input_bytes=_ENGINE.input_bytes,
                      output_bytes=int(self.limits["output_kb"] * 1024),
                      stdout_chars=_ENGINE.stdout_chars)

    def rows(self) -> list[tuple[str, Any, str]]:
        out: list[tuple[str, Any, str]] = [
            ("paths", self.paths, self.origin.get("paths", "default")),
            ("jobs", self.jobs if self.jobs is not None else "twice the number of CPUs",
             self.origin.get("jobs", "default"))]
        for k in ENGINE_LIMITS:
            out.append((f"limits.{k}", self.limits[k],
                        self.origin.get(f"limits.{k}", "default (the engine's value)")))
        out.append(("pythons", self.pythons, self.origin.get(
            "pythons", "default (PATH, uv, pyenv; `stepsmith python` lists what each "
            "workflow uses)")))
        return out


def find_config(start: Path) -> tuple[Path, dict] | None:
    """The nearest stepsmith.toml, or pyproject.toml with [tool.stepsmith], at or above
    `start`; (file, its stepsmith table)."""
    start = start.resolve()
    folder = start if start.is_dir() else start.parent
    for d in [folder, *folder.parents]:
        # lexists, not is_file: a symlink to a device or out of the folder is refused (by
        # _read), never skipped in favour of a file further up
        own = d / "stepsmith.toml"
        if os.path.lexists(own):
            return own, _read(own)
        py = d / "pyproject.toml"
        if os.path.lexists(py):
            table = _read(py).get("tool", {}).get("stepsmith")
            if table is not None:
                if not isinstance(table, dict):
                    raise SettingsError(f"{py}: [tool.stepsmith] must be a table")
                return py, table
    return None


def _read(path: Path) -> dict:
    try:
        data = safeio.read_bytes(path, root=path.parent, cap=CONFIG_CAP)
        return tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: invalid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise SettingsError(f"{path}: not UTF-8") from None
    except safeio.UnsafePath as exc:  # outside its folder, not a regular file, too large
        raise SettingsError(f"{exc}; not used as settings") from None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _project_paths(path: Path, value: list[str]) -> list[str]:
    """`paths` entries, each inside the project folder (the settings file's own folder, real
    path: a symlinked subfolder that leads out counts as outside)."""

    project = path.parent
    out = []
    for v in value:
        full = Path(v) if Path(v).is_absolute() else project / v
        if not safeio.inside(full, project):
            raise SettingsError(
                f"{path}: paths entry {v!r} is outside the project folder {project} "
                "(settings may only name folders inside it; give folders elsewhere on the "
                "command line)")
        out.append(str(full))
    return out


def _python_paths(path: Path, value: object) -> dict[str, str]:
    """`pythons = {"3.13" = "/opt/py313/bin/python3.13"}`: versions to absolute paths outside
    the project folder (the settings file's own folder)."""

    if not isinstance(value, dict):
        raise SettingsError(f'{path}: pythons must be a table like {{"3.13" = '
                            '"/usr/bin/python3.13"}')
    out = {}
    for version, exe in value.items():
        if not is_python_pin(version):
            raise SettingsError(f'{path}: pythons key {version!r} is not a version like "3.13" '
                                'or "3.13.5"')
        if not isinstance(exe, str) or not os.path.isabs(exe):
            raise SettingsError(f"{path}: pythons.{version} must be an absolute path to an "
                                f"interpreter, not {exe!r}")
        project = _enclosing_repository(path.parent)
        if safeio.inside(Path(exe), project):
            raise SettingsError(
                f"{path}: pythons.{version} = {exe!r} lies inside the project folder "
                f"{project}: settings may only name an interpreter installed elsewhere "
                f"(a repository must not ship the program stepsmith runs); use ${{STEPSMITH_"
                "PYTHONS}} for one of your own there")
        out[version] = exe
    return out


def _enclosing_repository(folder: Path) -> Path:
    """The work tree of the git repository `folder` lies in (the folder itself outside one):
    a settings file in a subfolder must not name a program elsewhere in its own clone."""
    folder = folder.resolve()
    for d in [folder, *folder.parents]:
        if os.path.lexists(d / ".git"):
            return d
    return folder


def _unknown(where: str, key: str, known) -> SettingsError:
    close = difflib.get_close_matches(key, list(known), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return SettingsError(f"{where}: unknown setting {key!r}{hint} (known: {', '.join(known)})")


def load_settings(start: str | Path = ".") -> Settings:
    found = find_config(Path(start))
    s = Settings()
    if found is None:
        return s
    path, table = found
    s.source = path
    where = f"{path.name}" + (" [tool.stepsmith]" if path.name == "pyproject.toml" else "")
    origin = str(path) + (" [tool.stepsmith]" if path.name == "pyproject.toml" else "")
    for key, value in table.items():
        if key not in TOP_KEYS:
            raise _unknown(f"{path}", key, TOP_KEYS)
        if key == "paths":
            if not (isinstance(value, list) and value and all(isinstance(v, str) and v
                                                              for v in value)):
                raise SettingsError(f"{path}: paths must be a non-empty list of strings")
            s.paths = _project_paths(path, value)
            s.origin["paths"] = origin
        elif key == "jobs":
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_JOBS:
                raise SettingsError(f"{path}: jobs must be an integer from 1 to {MAX_JOBS}, "
                                    f"not {value!r}")
            s.jobs = value
            s.origin["jobs"] = origin
        elif key == "pythons":
            s.pythons = _python_paths(path, value)
            s.origin["pythons"] = origin
        elif key == "limits":
            if not isinstance(value, dict):
                raise SettingsError(f"{path}: limits must be a table ([{where}.limits])")
            for lk, lv in value.items():
                if lk not in ENGINE_LIMITS:
                    raise _unknown(f"{path}: limits", lk, ENGINE_LIMITS)
                ceiling, floor = ENGINE_LIMITS[lk], LIMIT_MINIMUM[lk]
                if isinstance(lv, bool) or not isinstance(lv, (int, float)) or (
                        isinstance(ceiling, int) and not isinstance(lv, int)):
                    kind = "an integer" if isinstance(ceiling, int) else "a number"
                    raise SettingsError(f"{path}: limits.{lk} must be {kind}, not {lv!r}")
                if lv > ceiling:
                    raise SettingsError(
                        f"{path}: limits.{lk} = {lv} is above the engine's ceiling {ceiling}: "
                        "a step that needs more would fail in the engine (limits can only be "
                        "lowered)")
                if lv < floor:
                    raise SettingsError(f"{path}: limits.{lk} = {lv} is below the minimum "
                                        f"{floor}")
                s.limits[lk] = lv
                s.origin[f"limits.{lk}"] = origin
    return s


# The settings of the running command (set once by the CLI; read by the fixture runner's
# worker threads, hence a plain module global rather than a context variable).
_active: Settings | None = None


def activate(settings: Settings | None) -> None:
    global _active
    _active = settings


def active() -> Settings:
    return _active if _active is not None else Settings()


_project_pythons = True


def trust_project_pythons(trusted: bool) -> None:
    """Whether a workflow folder's own settings may name interpreters (the language server in
    an untrusted workspace: no; only PATH, uv, pyenv and $STEPSMITH_PYTHONS are looked at)."""
    global _project_pythons
    _project_pythons = bool(trusted)


def interpreter_settings(near: Path | None) -> Settings:
    """The settings whose `pythons` table maps interpreters for a workflow at `near`
    (runner/pythons reads it): the command's when a command activated some, else those found
    upward from `near` (the language server, MCP and the pytest plugin activate none; read
    again after `_MAPPING_FRESH_S`); empty settings, which map nothing, in an untrusted
    workspace or when the settings file is broken (the commands that read settings report
    it)."""
    if _active is not None:
        return _active
    if near is None or not _project_pythons:
        return Settings()

    now = time.monotonic()
    hit = _mappings.get(near)
    if hit is not None and now - hit[0] <= _MAPPING_FRESH_S:
        return hit[1]
    try:
        found = load_settings(near)
    except SettingsError:
        found = Settings()
    _mappings[near] = (now, found)
    return found


_MAPPING_FRESH_S = 2.0
_mappings: dict[Path, tuple[float, Settings]] = {}


def forget_mappings() -> None:
    """Read the folders' settings mappings again on next use (pythons.forget)."""
    _mappings.clear()
