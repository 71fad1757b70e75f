"""Incremental step-file validation: re-check only the top-level statements an edit touched.

The validator's contract (docs/ARCHITECTURE.md) is that every rule is local to one top-level
statement, so a file can be cut into *chunks* of whole lines, each chunk validated on its own
with its line offset, and the results concatenated.

How the file is cut: a chunk starts at every line that begins in column 0 with a character that
can start a statement (not blank, not a comment, not a closing bracket, not `else`/`elif`/
`except`/`finally`). Such a cut is only a guess — the line may sit inside a triple-quoted string
or an open bracket — so each chunk is validated on its own and a chunk that does not parse
(`SS0xx` meta problem) is merged with the following chunks (1, 3, 7, ... more) until it parses.
If a chunk only parses together with the end of the file, or anything looks unusual, the whole
file is validated from scratch. Why that is exact: a chunk that parses on its own, starting at a
statement boundary, ends with the tokenizer in a clean state (no open bracket, string or line
continuation) and the next line starts in column 0, so Python reads the whole file as the
concatenation of the chunks' statements.

Two things are position-dependent in Python itself and are handled explicitly: a docstring is
only the *first* statement (non-first chunks are validated after a dummy docstring line, whose
own problems are dropped), and `from __future__` imports must come first (any chunk but the first
mentioning `__future__` forces a full validation).

Results are cached per chunk text, so an edit inside one function re-validates that function
only; everything else is a dictionary hit plus a line shift.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

from stepsmith.runner.problems import Problem, Span

_NEWLINE_RE = re.compile(r"\r\n|\r|\n")
_NOT_START = frozenset(" \t\f\r\n#)]}\\\x0b")
_CONTINUATIONS = ("else", "elif", "except", "finally")
_DEF_RE = re.compile(r"(?:async[ \t]+)?def[ \t]+(\w+)")
_PREFIX = '""\n'  # dummy docstring placed before non-first chunks


def split_lines(text: str) -> list[str]:
    """Split like an editor (LSP): only \\r\\n, \\r and \\n end lines; endings are kept."""
    if not text:
        return [""]
    out: list[str] = []
    pos = 0
    for m in _NEWLINE_RE.finditer(text):
        out.append(text[pos : m.end()])
        pos = m.end()
    out.append(text[pos:])  # last line (possibly empty)
    return out


def _is_start(line: str) -> bool:
    c = line[:1]
    if not c or c in _NOT_START:
        return False
    if c in "eEf" and line.startswith(_CONTINUATIONS):
        for word in _CONTINUATIONS:
            if line.startswith(word):
                nxt = line[len(word) : len(word) + 1]
                if not (nxt.isalnum() or nxt == "_"):
                    return False
    return True


def _over_cap(text: str) -> bool:
    """Whole-file conditions the validator checks before any statement: size cap, encoding."""
    try:
        from stepsmith.runner.validator.policy import MAX_SOURCE_BYTES
    except ImportError:  # pragma: no cover - validator without a policy module
        MAX_SOURCE_BYTES = 1 << 20
    if len(text) > MAX_SOURCE_BYTES:
        return True
    if text.isascii():
        return False
    try:
        return len(text.encode("utf-8")) > MAX_SOURCE_BYTES
    except UnicodeEncodeError:
        return True


def chunk_starts(lines: Sequence[str]) -> list[int]:
    """0-based indices of the lines where chunks start (always begins with 0)."""
    starts = [0]
    for i in range(1, len(lines)):
        if _is_start(lines[i]):
            starts.append(i)
    return starts


def _shift(problems: list[Problem], delta: int) -> list[Problem]:
    if not delta:
        return problems
    out = []
    for p in problems:
        s = p.span
        out.append(
            dataclasses.replace(
                p, span=Span(s.line + delta, s.column, s.end_line + delta, s.end_column)
            )
        )
    return out


def _is_meta_failure(problems: list[Problem]) -> bool:
    for p in problems:
        if p.code.startswith("SS0"):
            return True
    return False


ValidateFn = Callable[..., list[Problem]]


def _default_validate() -> ValidateFn:
    from stepsmith.runner.validator import validate

    return validate


@dataclasses.dataclass
class FunctionSpan:
    """A top-level `def` in a step file: name and 1-based inclusive line range of its chunk."""

    name: str
    line: int  # the `def` line (1-based)
    column: int  # column of the name on that line
    end_line: int  # last line of the chunk (1-based, inclusive)


class IncrementalValidator:
    """Validates successive versions of one step file, re-checking only changed chunks.

    `update(text)` returns exactly what `validate(text, python=..., uses=...)` returns (the
    property test in tests/language proves it), usually much faster.
    """

    def __init__(
        self,
        *,
        python: str = "3.11",
        uses: Sequence = (),
        validate: ValidateFn | None = None,
        max_size: int | None = None,
    ) -> None:
        self._validate = validate or _default_validate()
        self.python = python
        self.uses = tuple(uses)
        self.max_size = max_size
        self._cache: dict[tuple[bool, str], list[Problem]] = {}
        self.stats = {"chunks": 0, "validated": 0, "full": 0}
        self.functions: list[FunctionSpan] = []

    def configure(self, *, python: str, uses: Sequence) -> None:
        uses = tuple(uses)
        if python != self.python or uses != self.uses:
            self.python = python
            self.uses = uses
            self._cache.clear()

    def _run(self, text: str, first: bool) -> list[Problem]:
        key = (first, text)
        hit = self._cache.get(key)
        if hit is not None:
            self._new_cache[key] = hit
            return hit
        self.stats["validated"] += 1
        if first:
            res = self._validate(text, python=self.python, uses=self.uses)
        else:
            res = self._validate(_PREFIX + text, python=self.python, uses=self.uses)
            res = _shift([p for p in res if p.span.line >= 2], -1)
        self._new_cache[key] = res
        return res

    def _full(self, text: str) -> list[Problem]:
        self.stats["full"] += 1
        return list(self._validate(text, python=self.python, uses=self.uses))

    def update(self, text: str, lines: Sequence[str] | None = None) -> list[Problem]:
        """Problems of `text` (optionally already split into editor lines)."""
        self._new_cache: dict[tuple[bool, str], list[Problem]] = {}
        try:
            return self._update(text, lines)
        finally:
            self._cache = self._new_cache

    def _update(self, text: str, lines: Sequence[str] | None) -> list[Problem]:
        if (self.max_size is not None and len(text) > self.max_size) or "\x00" in text or _over_cap(text):
            self.functions = []
            return self._full(text)
        if lines is None:
            lines = split_lines(text)
        starts = chunk_starts(lines)
        n = len(starts)
        self.stats["chunks"] = n
        bounds = starts + [len(lines)]
        out: list[Problem] = []
        functions: list[FunctionSpan] = []
        i = 0
        while i < n:
            first = i == 0
            j = i + 1  # chunk covers starts[i] .. bounds[j]
            step = 1
            while True:
                a, b = bounds[i], bounds[j]
                chunk = "".join(lines[a:b])
                if not first and "__future__" in chunk:
                    self.functions = []
                    return self._full(text)
                res = self._run(chunk, first)
                if not _is_meta_failure(res):
                    break
                if j >= n:  # reached the end of the file and still failing: a real error
                    self.functions = []
                    return self._full(text)
                step *= 2
                j = min(n, j + step - 1)
            a, b = bounds[i], bounds[j]
            if res:
                out.extend(_shift(res, a))
            # top-level functions of this chunk (by its start lines)
            for k in range(i, j):
                line = lines[bounds[k]]
                m = _DEF_RE.match(line)
                if m:
                    functions.append(
                        FunctionSpan(m.group(1), bounds[k] + 1, m.start(1), bounds[k + 1])
                    )
            i = j
        self.functions = functions
        return out  # chunks are in order and each chunk's problems are sorted


def function_spans(text: str) -> list[FunctionSpan]:
    """Top-level functions of a step file by line (cheap, text-based; no parse)."""
    lines = split_lines(text)
    starts = chunk_starts(lines)
    bounds = starts + [len(lines)]
    out = []
    for k, s in enumerate(starts):
        m = _DEF_RE.match(lines[s])
        if m:
            out.append(FunctionSpan(m.group(1), s + 1, m.start(1), bounds[k + 1]))
    return out
