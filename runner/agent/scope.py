"""The workspace an agent may touch: the roots the client declares (MCP roots), else the folder
`stepsmith mcp` was started for. A FOLDER given on the command line bounds the client's roots
(their intersection: a root inside FOLDER stays, a root holding FOLDER becomes FOLDER, any other
is dropped), so a client declaring `file:///` still reaches only FOLDER. Every path is resolved
(symlinks included) and must lie inside one of the roots, compared as real paths component by
component (never as string prefixes); anything else is refused before it is read."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from stepsmith.runner.errors import Refused


class OutsideRoots(Refused):
    """A path outside every workspace root (or not a local file URI)."""


def inside(path: Path, root: Path) -> bool:
    """`path` is `root` or lies below it (both real paths; whole components compared)."""
    return path == root or root in path.parents


@dataclass(frozen=True)
class Scope:
    roots: tuple[Path, ...]
    empty_because: str = ""  # why there is no root, when there is none

    @classmethod
    def of(cls, folders) -> Scope:
        return cls(tuple(Path(os.path.realpath(f)) for f in folders))

    @classmethod
    def from_uris(cls, uris) -> Scope:
        """The local folders of `file:` URIs; a URI naming another host (`file://host/srv`)
        or another scheme is not a local folder and is left out."""
        folders = []
        for u in uris:
            parsed = urlparse(str(u))
            if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
                continue  # only local folders can hold a workflow
            folders.append(unquote(parsed.path))
        return cls.of(folders)

    def bounded_by(self, folder: Path) -> Scope:
        """The intersection of these roots with `folder` (a real path)."""
        out: list[Path] = []
        for r in self.roots:
            if inside(r, folder):
                out.append(r)
            elif inside(folder, r):
                out.append(folder)
        kept = tuple(dict.fromkeys(out))
        why = "" if kept else (
            f"the client's roots ({', '.join(map(str, self.roots)) or 'none'}) lie outside "
            f"{folder}, the folder `stepsmith mcp` was started for, which bounds them")
        return Scope(kept, why)

    def resolve(self, path: str | None) -> Path:
        """`path` (relative to the first root; default: the first root) as a real path inside
        a root; OutsideRoots otherwise."""
        if not self.roots:
            raise OutsideRoots(self.empty_because or (
                "no workspace root is known: start `stepsmith mcp FOLDER` or let the client "
                "declare its roots"))
        if path is None or path == "":
            return self.roots[0]
        if "\0" in path:
            raise OutsideRoots("a path may not contain NUL")
        raw = Path(path)
        full = raw if raw.is_absolute() else self.roots[0] / raw
        real = Path(os.path.realpath(full))
        for root in self.roots:
            if inside(real, root):
                return real
        via = " (through a symlink)" if real != Path(os.path.abspath(full)) else ""
        raise OutsideRoots(f"{path}: outside the workspace roots{via} "
                           f"({', '.join(str(r) for r in self.roots)})")

    def shown(self, path: Path | str) -> str:
        """A path as the agent should name it back: relative to the first root when inside
        it; a path in another root stays absolute (relative ones are read from the first)."""
        p = Path(os.path.realpath(path))
        for root in self.roots:
            if inside(p, root):
                rel = p.relative_to(root).as_posix()
                return rel if root == self.roots[0] else str(p)
        return str(p)
