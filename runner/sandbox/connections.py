"""Where a step's credentials come from (SPEC: Connections; issue 10, finding 1).

A real credential reaches a step only in an explicitly live run (`--live`, or the editor's
live command). Every other run (fixture tests, `run`, `record`, `run-workflow` offline, the
editor's fixture runs) hands each granted alias the deterministic placeholder
`stepsmith-placeholder:<alias>`, redacted like a real one, so results never depend on the
author's environment and a cloned folder can never pull a credential into a test.

For a live run, alias `xero` of workflow `invoice-matching` is looked up in
1. the environment: `STEPSMITH_CONNECTION_INVOICE_MATCHING_XERO` (scoped to the workflow),
2. then `STEPSMITH_CONNECTION_XERO`,
3. then the git-ignored `<workflow>/.stepsmith/connections.env` (either name, or `xero=`).
That file must be a regular file (never a symlink: a folder shipping
`.stepsmith/connections.env -> ~/.aws/credentials` must not turn host files into
credentials), inside the workflow's own `.stepsmith/` (itself not a symlink), at most
64 KiB; a group/world-readable one gets a warning, as ssh does. A missing credential is an
error naming the alias and every place looked.
"""

from __future__ import annotations

import os
import re
import stat
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..safeio import CREDENTIALS_CAP, UnsafePath, read_text

_ALIAS_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
PLACEHOLDER = "stepsmith-placeholder:"
ENV_FILE = (".stepsmith", "connections.env")


class CredentialFileWarning(UserWarning):
    """connections.env is readable by other users."""


class MissingCredential(LookupError):
    def __init__(self, alias: str, looked: list[str]):
        self.alias, self.looked = alias, looked
        super().__init__(f"no credential for connection {alias!r} (a live run needs it): "
                         "looked in " + ", ".join(looked))

    def __str__(self) -> str:
        return self.args[0]


def _slug(text: str) -> str:
    return text.upper().replace("-", "_")


def env_name(alias: str, workflow: str | None = None) -> str:
    """STEPSMITH_CONNECTION_[<WORKFLOW>_]<ALIAS>: upper-cased, '-' → '_'."""
    if not _ALIAS_RE.fullmatch(alias):
        raise ValueError(f"invalid connection alias {alias!r}")
    if workflow is not None:
        if not _ALIAS_RE.fullmatch(workflow):
            raise ValueError(f"invalid workflow slug {workflow!r}")
        return f"STEPSMITH_CONNECTION_{_slug(workflow)}_{_slug(alias)}"
    return "STEPSMITH_CONNECTION_" + _slug(alias)


def placeholders(aliases: Iterable[str]) -> dict[str, str]:
    """What an offline run hands each granted alias."""
    return {a: PLACEHOLDER + a for a in aliases}


def env_file(workflow_dir: str | os.PathLike) -> Path:
    return Path(workflow_dir).joinpath(*ENV_FILE)


def _parse_env_file(workflow_dir: Path) -> dict[str, str]:
    path = env_file(workflow_dir)
    try:
        text = read_text(path, root=workflow_dir, cap=CREDENTIALS_CAP, no_symlink=True)
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except UnicodeDecodeError as exc:
        raise UnsafePath(f"{path}: not UTF-8 text ({exc.reason})") from None
    mode = os.stat(path).st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        warnings.warn(f"{path} is readable by other users (mode {stat.S_IMODE(mode):04o}); "
                      f"chmod 600 {path}", CredentialFileWarning, stacklevel=3)
    out: dict[str, str] = {}
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
                     environ: Mapping[str, str] | None = None, *,
                     workflow: str | None = None) -> dict[str, str]:
    """alias → real secret for the declared `aliases` that have one (others are left out);
    for live runs and for checking that a document does not contain one. `workflow`: the
    manifest's slug, for the workflow-scoped variable. Raises UnsafePath for a symlinked or
    oversized credential file."""
    env = os.environ if environ is None else environ
    file_values: dict[str, str] | None = None
    out: dict[str, str] = {}
    for alias in aliases:
        names = ([env_name(alias, workflow)] if workflow else []) + [env_name(alias)]
        value = next((env[n] for n in names if env.get(n)), None)
        if not value:
            if file_values is None:
                file_values = _parse_env_file(Path(workflow_dir))
            value = next((file_values[n] for n in (*names, alias) if file_values.get(n)), None)
        if value:
            out[alias] = value
    return out


def live_connections(workflow_dir: str | os.PathLike, aliases: Iterable[str],
                     workflow: str | None, environ: Mapping[str, str] | None = None
                     ) -> dict[str, str]:
    """Every alias's real credential, or MissingCredential naming the alias and the places."""
    aliases = list(aliases)
    found = load_connections(workflow_dir, aliases, environ, workflow=workflow)
    for alias in aliases:
        if alias not in found:
            looked = ([f"${env_name(alias, workflow)}"] if workflow else []) + [
                f"${env_name(alias)}", str(env_file(workflow_dir))]
            raise MissingCredential(alias, looked)
    return found
