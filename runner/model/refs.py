"""Typed references inside a manifest, parsed once: `CodeRef` for a step's `code:` and
`InputRef` (`SourceRef` | `StepOutputRef` | `Literal`, or `MalformedRef`) for an input value.

Plain Python, no I/O. The positioned check (manifest/workflow_checks.py, manifest/crossref.py) and the
pydantic model (`Step.code_ref`, `Step.input_refs`) call the same parsers, so a reference
means the same thing to every consumer. Offsets (`*_start`) are code points into the written
text, for sub-spans of the YAML scalar.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from .grammar import CODE_PATTERN, NAME_PATTERN, SOURCE_PREFIX, STEP_PREFIX, STEP_SUFFIX

_CODE_RE = re.compile(CODE_PATTERN)


@dataclass(frozen=True, slots=True)
class CodeRef:
    """`steps/match.py:match` -> CodeRef("steps/match.py", "match")."""

    path: str  # as written, relative to the manifest's folder
    function: str

    @classmethod
    def parse(cls, text: object) -> CodeRef | None:
        """Split at the LAST colon (`C:\\x.py:f` is path `C:\\x.py`, so its absolute path is
        reported). None when the text has no `path:function` shape at all (no colon, empty
        path, a function that is not an identifier): the schema's SM005 says why."""
        if not isinstance(text, str) or ":" not in text:
            return None
        path, _, function = text.rpartition(":")
        if not path or not function.isidentifier():
            return None
        return cls(path, function)

    @property
    def text(self) -> str:
        return f"{self.path}:{self.function}"

    def __str__(self) -> str:
        return self.text

    @property
    def function_start(self) -> int:
        """Offset of the function name in `text`."""
        return len(self.path) + 1

    @property
    def well_formed(self) -> bool:
        """What the schema accepts (`CODE_PATTERN`): one colon, a `.py` path, an ASCII name."""
        return _CODE_RE.fullmatch(self.text) is not None  # `$` alone would allow a final \n

    @property
    def normalised(self) -> str:
        """The path with `.` and `a/..` folded (`os.path.normpath`), as files are compared."""
        return os.path.normpath(self.path)

    def path_error(self) -> str | None:
        """Why this path may not be used (SM202), or None: absolute (`/x`, `~/x`, `\\x`,
        `C:...`), or leaving the workflow folder (`..`, a backslash). Symbolic links are the
        caller's to check: they need the disk."""
        p = self.path
        if os.path.isabs(p) or p.startswith(("~", "\\")) or (len(p) > 1 and p[1] == ":"):
            return f"code path {p!r} is absolute; write it relative to the workflow folder"
        norm = self.normalised
        if norm == ".." or norm.startswith(".." + os.sep) or "\\" in p:
            return f"code path {p!r} leaves the workflow folder"
        return None

    def names_file(self, rel: str) -> bool:
        """Does this reference name the file `rel` (relative to the manifest's folder)?"""
        return self.normalised == os.path.normpath(rel)


# ------------------------------------------------------------------------ input references

_SOURCE_RE = re.compile("^" + re.escape(SOURCE_PREFIX) + "(" + NAME_PATTERN.strip("^$") + ")$")
_STEP_RE = re.compile("^" + re.escape(STEP_PREFIX) + r"([^.]*)" + re.escape(STEP_SUFFIX) + "$")


@dataclass(frozen=True, slots=True)
class SourceRef:
    """`sources.<name>`: the value of a declared source."""

    name: str
    name_start = len(SOURCE_PREFIX)

    @property
    def text(self) -> str:
        return SOURCE_PREFIX + self.name


@dataclass(frozen=True, slots=True)
class StepOutputRef:
    """`steps.<id>.output`: the output of another step (the id is checked against the
    declared steps, not the slug grammar, so `steps.Match.output` gets a did-you-mean)."""

    step: str
    step_start = len(STEP_PREFIX)

    @property
    def text(self) -> str:
        return STEP_PREFIX + self.step + STEP_SUFFIX


@dataclass(frozen=True, slots=True)
class Literal:
    """Any other value, passed as written (a string not starting with `sources.`/`steps.`)."""

    value: Any


@dataclass(frozen=True, slots=True)
class MalformedRef:
    """A string that starts like a reference but is not one (`sources.`, `steps.x`): never a
    literal by accident. The manifest check reports it (SM102 / SM104)."""

    text: str
    kind: str  # "source" | "step"

    @property
    def message(self) -> str:
        if self.kind == "source":
            return f"malformed source reference {self.text!r}: expected {SOURCE_PREFIX}<name>"
        return (f"malformed step reference {self.text!r}: expected "
                f"{STEP_PREFIX}<id>{STEP_SUFFIX}")


InputRef = SourceRef | StepOutputRef | Literal | MalformedRef


def parse_input_ref(value: Any) -> InputRef:
    if isinstance(value, str):
        if value.startswith(SOURCE_PREFIX):
            m = _SOURCE_RE.fullmatch(value)
            return SourceRef(m.group(1)) if m else MalformedRef(value, "source")
        if value.startswith(STEP_PREFIX):
            m = _STEP_RE.fullmatch(value)
            return StepOutputRef(m.group(1)) if m else MalformedRef(value, "step")
    return Literal(value)


def sources_read(refs) -> tuple[str, ...]:
    """Names of the sources read by `refs` (InputRef values), first use first, once each."""
    return tuple(dict.fromkeys(r.name for r in refs if isinstance(r, SourceRef)))
