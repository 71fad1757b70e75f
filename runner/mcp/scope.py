"""The workspace an agent may touch: the roots the client declares (MCP roots), else the folder
`stepsmith mcp` was started for. Every path is resolved (symlinks included) and must lie inside
one of them; anything else is refused before it is read."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse


class OutsideRoots(ValueError):
    """A path outside every workspace root (or not a local file URI)."""


@dataclass(frozen=True)
class Scope:
    roots: tuple[Path, ...]

    @classmethod
    def of(cls, folders) -> Scope:
        return cls(tuple(Path(os.path.realpath(f)) for f in folders))

    @classmethod
    def from_uris(cls, uris) -> Scope:
        folders = []
        for u in uris:
            parsed = urlparse(str(u))
            if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
                continue  # only local folders can hold a workflow
            folders.append(unquote(parsed.path))
        return cls.of(folders)

    def resolve(self, path: str | None) -> Path:
        """`path` (relative to the first root; default: the first root) as a real path inside
        a root; OutsideRoots otherwise."""
        if not self.roots:
            raise OutsideRoots("no workspace root is known: start `stepsmith mcp FOLDER` or let "
                               "the client declare its roots")
        if path is None or path == "":
            return self.roots[0]
        if "\0" in path:
            raise OutsideRoots("a path may not contain NUL")
        raw = Path(path)
        full = raw if raw.is_absolute() else self.roots[0] / raw
        real = Path(os.path.realpath(full))
        for root in self.roots:
            if real == root or root in real.parents:
                return real
        raise OutsideRoots(f"{path}: outside the workspace roots "
                           f"({', '.join(str(r) for r in self.roots)})")

    def shown(self, path: Path | str) -> str:
        """A path as the agent should name it back: relative to the first root when inside."""
        p = Path(os.path.realpath(path))
        for root in self.roots:
            if p == root or root in p.parents:
                rel = p.relative_to(root).as_posix()
                return rel if root == self.roots[0] else str(p)
        return str(p)
