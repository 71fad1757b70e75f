"""The Python a workflow pins: finding it (discover.py), what it is (probe.py, describe.py),
checking step code with its grammar (checker.py, helper.py).

A manifest's `python: "3.13"` names the interpreter its steps are checked and run on, never
the one stepsmith runs on unless it is that version. `resolve(pin, near)` is the one lookup:
the settings found from `near` (or the command's active settings) give the explicit mapping.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from stepsmith.runner import settings

from . import probe
from .discover import PythonNotFound, find, settings_mapping
from .probe import Interpreter, running

__all__ = ["Interpreter", "PythonNotFound", "find", "resolve", "running"]

#: How long one answer is reused: a check of twenty workflows or a burst of keystrokes asks
#: once; an interpreter installed meanwhile is found a moment later.
FRESH_S = 2.0
_ENV_KEYS = ("STEPSMITH_PYTHONS", "PATH", "UV_PYTHON_INSTALL_DIR", "XDG_DATA_HOME",
             "PYENV_ROOT", "HOME")
_lock = threading.Lock()
_answers: dict[tuple, tuple[float, Interpreter | PythonNotFound]] = {}


def resolve(pin: str, near: str | os.PathLike | None = None) -> Interpreter:
    """The interpreter for `pin` for a workflow at `near` (its folder: the settings found
    from there give the explicit mapping, unless a command activated its own);
    PythonNotFound otherwise."""
    mapping = tuple(settings_mapping(
        settings.interpreter_settings(Path(near) if near is not None else None)))
    key = (pin, mapping, tuple(os.environ.get(k) for k in _ENV_KEYS))
    now = time.monotonic()
    with _lock:
        hit = _answers.get(key)
    if hit is None or now - hit[0] > FRESH_S:
        try:
            answer: Interpreter | PythonNotFound = find(pin, list(mapping))
        except PythonNotFound as exc:
            answer = exc
        with _lock:
            _answers[key] = (now, answer)
    else:
        answer = hit[1]
    if isinstance(answer, PythonNotFound):
        raise answer.with_traceback(None)
    return answer


def forget() -> None:
    """Drop remembered answers and probes (tests; after installing an interpreter)."""

    with _lock:
        _answers.clear()
    settings.forget_mappings()
    probe.forget()
