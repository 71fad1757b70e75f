"""The one shape every finding takes: validator violations and manifest errors alike.

Positions: `line` is 1-based, `column` is 0-based and counted in Unicode code points of the
line (Python `str` indices), never UTF-8 bytes; the end is exclusive. Editors convert to their
own encoding (the language server does UTF-16/UTF-8).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Span:
    line: int  # 1-based
    column: int  # 0-based, code points
    end_line: int
    end_column: int

    @classmethod
    def point(cls, line: int, column: int, width: int = 1) -> "Span":
        return cls(line, column, line, column + width)


@dataclass(frozen=True)
class Problem:
    """A rule violation in step code, or an error in a manifest."""

    code: str  # stable: SS1xx.. step rules, SM0xx manifest rules
    message: str  # one line
    span: Span
    path: str | None = None  # file the problem is in, when known
    step: str | None = None  # step function (code) or step id (manifest) it is in
    rationale: str = ""  # one line: why the rule exists
    severity: Severity = Severity.ERROR
    data: dict = field(default_factory=dict, compare=False, hash=False)  # fix hints for editors

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column

    def sort_key(self):
        return (self.path or "", self.span, self.code)

    def to_json(self) -> dict:
        d = asdict(self)
        d["severity"] = self.severity.value
        sp = d.pop("span")
        d.update(sp)
        return d
