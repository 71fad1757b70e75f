"""Finding the interpreter a `python:` pin names, as the user has it installed.

In this order, the first that is a CPython of the pinned version wins:
1. the settings' mapping (`[tool.stepsmith] pythons = {"3.13" = "/opt/py313/bin/python3.13"}`)
   and then `$STEPSMITH_PYTHONS` (`3.13=/opt/py313/bin/python3.13`, pairs separated by
   `os.pathsep`, for CI); a version named there is looked up nowhere else: a path that is not
   that version is an error, not a reason to take another one;
2. the interpreter stepsmith runs on, when it is that version (no second process: checks run
   in-process and results stay those of today's runs);
3. `python3.X` on `PATH`;
4. uv's managed interpreters (`$UV_PYTHON_INSTALL_DIR`, else `$XDG_DATA_HOME/uv/python` or
   `~/.local/share/uv/python`), newest release first;
5. pyenv's (`$PYENV_ROOT/versions`, else `~/.pyenv/versions`), newest release first.
`"3.13"` takes any 3.13.x; `"3.13.5"` that release only.

A settings file is untrusted input (a cloned repository): a path it maps must be absolute, lie
outside the project folder (checked when the settings are read, runner/settings.py), and be a
program only root or the user can change; otherwise it is refused with the reason, never run.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from stepsmith.runner.errors import UsageError

from .pins import Pin
from .probe import Interpreter, ProbeFailed, probe, running

if TYPE_CHECKING:
    from stepsmith.runner.settings import Settings

ENV = "STEPSMITH_PYTHONS"
#: The oldest Python steps can be pinned to: the harness and the validator run inside the
#: sandbox on the pinned interpreter, and are written for this version on.
OLDEST = (3, 11)


class PythonNotFound(UsageError):
    """No interpreter for a pin: `message` names the version, where it looked and how to get
    one. Raised before anything runs."""

    def __init__(self, pin: str, looked: list[str], *, bad: bool = False,
                 reason: str | None = None) -> None:
        self.pin = pin
        self.looked = looked
        super().__init__(reason or not_found_message(pin, looked, bad=bad))

    @property
    def message(self) -> str:
        return str(self)


def not_found_message(pin: str, looked: list[str], *, bad: bool = False) -> str:
    p = Pin.parse(pin)
    minor = p.minor_text if p else pin
    if bad:
        return (f"the workflow pins python {pin!r}, which is not a version (write \"3.X\" "
                "or \"3.X.Y\")")
    head = (f"Python {pin} (the workflow's `python:`) is not installed here. "
            f"Looked in: {'; '.join(looked)}. ")
    how = (f"Install it with `uv python install {pin}`, your distribution's package "
           f"(`apt-get install python{minor}`) or `pyenv install {pin}`, or name one in "
           f"[tool.stepsmith] pythons = {{\"{minor}\" = \"/path/to/python{minor}\"}} "
           f"or ${ENV}=\"{minor}=/path/to/python{minor}\"")
    return head + how


@dataclass(frozen=True)
class Mapped:
    """One explicit `version -> path` entry and where it was written."""

    version: str
    path: str
    origin: str  # "settings <file>" / "$STEPSMITH_PYTHONS"
    trusted: bool  # the user's own environment (True) or a settings file (False)


def settings_mapping(settings: Settings) -> list[Mapped]:
    """The settings' `pythons` table as entries (untrusted: a settings file)."""
    where = f"settings {settings.source}" if settings.source else "settings"
    return [Mapped(v, p, where, False) for v, p in settings.pythons.items()]


def env_mapping(environ: Mapping[str, str] | None = None) -> list[Mapped]:
    raw = (os.environ if environ is None else environ).get(ENV, "")
    out = []
    for part in raw.split(os.pathsep):
        version, sep, path = part.strip().partition("=")
        if sep and version.strip() and path.strip():
            out.append(Mapped(version.strip(), path.strip(), f"${ENV}", True))
    return out


def untrusted_reason(path: str) -> str | None:
    """Why a program named by a settings file is not run (None: it may be run): it must be a
    regular executable file that only root or this user can change (so a repository cannot
    ship or rewrite the program its settings name)."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    if not stat.S_ISREG(st.st_mode) or not os.access(real, os.X_OK):
        return f"{path} is not an executable file"
    me = os.geteuid()
    for p in [real, os.path.dirname(real)]:
        s = os.stat(p)
        if s.st_uid not in (0, me):
            return f"{p} belongs to another user (uid {s.st_uid})"
        if s.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return f"{p} is writable by other users"
    return None


def _version_key(name: str) -> tuple[int, ...]:
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", name)
    return tuple(int(x) for x in m.groups()) if m else (0, 0, 0)


def _managed(root: Path, pattern: str, exe: str) -> list[str]:
    """`root/<dir matching pattern>/bin/<exe>`, newest release first."""

    try:
        names = [d.name for d in root.iterdir() if re.fullmatch(pattern, d.name)]
    except OSError:
        return []
    names.sort(key=_version_key, reverse=True)
    return [str(root / n / "bin" / exe) for n in names if (root / n / "bin" / exe).exists()]


def uv_root(environ: Mapping[str, str]) -> Path:
    if environ.get("UV_PYTHON_INSTALL_DIR"):
        return Path(environ["UV_PYTHON_INSTALL_DIR"])
    data = environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                         "share")
    return Path(data) / "uv" / "python"


def pyenv_root(environ: Mapping[str, str]) -> Path:
    return Path(environ.get("PYENV_ROOT") or os.path.join(os.path.expanduser("~"), ".pyenv")) \
        / "versions"


def _on_path(exe: str, environ: Mapping[str, str]) -> list[str]:
    out = []
    for d in (environ.get("PATH") or "").split(os.pathsep):
        cand = os.path.join(d or ".", exe)
        if d and os.path.isfile(cand) and os.access(cand, os.X_OK):
            out.append(cand)
    return out


def _candidates(pin: Pin, environ: Mapping[str, str]) -> Iterator[tuple[str, list[str]]]:
    """(where, candidate paths) after the explicit mappings, in the documented order."""

    exe = f"python{pin.minor_text}"
    yield f"PATH ({exe})", _on_path(exe, environ)
    v = re.escape(pin.minor_text) + (rf"\.{pin.micro}" if pin.micro is not None else r"\.\d+")
    root = uv_root(environ)
    yield f"uv ({root})", _managed(root, rf"cpython-{v}[^/]*", exe)
    root = pyenv_root(environ)
    yield f"pyenv ({root})", _managed(root, v, exe)


def find(pin_text: str, mapping: list[Mapped] = (), environ: Mapping[str, str] | None = None
         ) -> Interpreter:
    """The interpreter for `pin_text` (PythonNotFound otherwise)."""
    environ = os.environ if environ is None else environ
    pin = Pin.parse(pin_text)
    if pin is None:
        raise PythonNotFound(str(pin_text), [], bad=True)
    if (pin.major, pin.minor) < OLDEST:
        oldest = ".".join(map(str, OLDEST))
        raise PythonNotFound(str(pin), [], reason=(
            f"Python {pin} is older than stepsmith can check and run steps on: pin {oldest} or "
            f"newer (its harness and validator run on the pinned interpreter)"))
    looked: list[str] = []
    explicit = [*mapping, *env_mapping(environ)]
    for m in explicit:
        if m.version not in (str(pin), pin.minor_text):
            continue
        where = f"{m.origin} maps {m.version} to {m.path}"
        if not m.trusted:
            why = untrusted_reason(m.path)
            if why is not None:
                raise PythonNotFound(str(pin), [f"{where}, refused: {why}"])
        try:
            interp = probe(m.path)
        except ProbeFailed as exc:
            raise PythonNotFound(str(pin), [f"{where}, which {exc}"]) from None
        if pin.matches(interp.version):
            return interp
        raise PythonNotFound(str(pin), [f"{where}, which is Python {interp.release}"])
    looked.append(f"[tool.stepsmith] pythons and ${ENV} (no {pin.minor_text})")
    me = running()
    if pin.matches(me.version):
        return me
    looked.append(f"the running interpreter (Python {me.release})")
    for where, paths in _candidates(pin, environ):
        seen: list[str] = []
        for path in paths:
            try:
                interp = probe(path)
            except ProbeFailed as exc:
                seen.append(f"{path} {exc}")
                continue
            if pin.matches(interp.version):
                return interp
            seen.append(f"{path} is Python {interp.release}")
        looked.append(f"{where}: " + (", ".join(seen) if seen else "none"))
    raise PythonNotFound(str(pin), looked)
