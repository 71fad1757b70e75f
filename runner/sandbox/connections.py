"""Where a local run's credentials come from (SPEC: Connections).

For alias `xero`: the author's environment variable `STEPSMITH_CONNECTION_XERO`, else a line
`STEPSMITH_CONNECTION_XERO=...` (or `xero=...`) in the git-ignored
`<workflow>/.stepsmith/connections.env`. Only the aliases asked for are read; the values
never appear in a fixture, a stored result, a log or a diagnostic (see redact.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

_ALIAS_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


def env_name(alias: str) -> str:
    """STEPSMITH_CONNECTION_<ALIAS>: upper-cased, '-' → '_'."""
    if not _ALIAS_RE.match(alias):
        raise ValueError(f"invalid connection alias {alias!r}")
    return "STEPSMITH_CONNECTION_" + alias.upper().replace("-", "_")


def _parse_env_file(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return out
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key = key.strip()
        if key.startswith("export "):
            key = key[7:].strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        out[key] = value
    return out


def load_connections(workflow_dir: str | os.PathLike, aliases: Iterable[str],
                     environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """alias → secret for the declared `aliases` that have a value; others are left out
    (the caller decides whether a missing credential is an error). The environment wins over
    the file."""
    env = os.environ if environ is None else environ
    file_values: dict[str, str] | None = None
    out: dict[str, str] = {}
    for alias in aliases:
        name = env_name(alias)
        value = env.get(name)
        if not value:
            if file_values is None:
                file_values = _parse_env_file(Path(workflow_dir) / ".stepsmith" / "connections.env")
            value = file_values.get(name) or file_values.get(alias)
        if value:
            out[alias] = value
    return out
