"""Quick fixes as typed values. The rule that finds a problem computes its fix and carries it
on `Problem.data` (plain JSON: `{"fix": kind, "title": ..., "edits": [[line, col, end_line,
end_col, new_text], ...]}`, positions as in `Span`); editors read it with `fix_of` and never
re-parse the code or match message text. `apply_edits` is what an editor does with them.

A fix is *safe* (`Fix.safe`: applied by `check --fix` and the editor's fix-all, preferred in
the editor, `safe` in MCP) when it keeps the program meaning what it meant, as ruff's safe
fixes do: its kind is one of `SAFE_KINDS` and, in a step file, runner/fix_safety.py kept it
on the whole file (a fix that would leave a name undefined or change what one refers to is
not offered at all). A guess (did-you-mean), `seed=0` (the author picks the seed: sampling
changes from random to one fixed draw) and removing a decorator (the function is no longer
what the decorator made of it) are offered one by one, never applied wholesale.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from stepsmith.runner.problems import Problem, Span


@dataclass(frozen=True)
class TextEdit:
    span: Span  # the replaced range, end exclusive
    new_text: str


# kinds whose every offered fix keeps the meaning: an import nothing uses (step files: vetted
# on the whole file), the explanation placeholder, the inputs a signature asks for or refuses,
# a grant the step cannot use (manifest/fixedits.py)
SAFE_KINDS = frozenset({"remove-import", "add-explanation", "add-inputs", "remove-input",
                        "remove-grant"})


@dataclass(frozen=True)
class Fix:
    title: str
    edits: tuple[TextEdit, ...]
    code: str  # the rule it fixes
    kind: str = ""  # e.g. "remove-import"

    @property
    def safe(self) -> bool:
        return self.kind in SAFE_KINDS


def fix_data(kind: str, title: str, edits: Iterable[tuple[Span, str]]) -> dict:
    """The `Problem.data` of a fix (what rules outside the validator use to build it)."""
    return {"fix": kind, "title": title,
            "edits": [[s.line, s.column, s.end_line, s.end_column, t] for s, t in edits]}


def with_alternatives(fixes: list[dict]) -> dict | None:
    """One `Problem.data` for several fixes: the first, the others under `alternatives`."""
    if not fixes:
        return None
    first = dict(fixes[0])
    if len(fixes) > 1:
        first["alternatives"] = [dict(f) for f in fixes[1:]]
    return first


def fixes_of(problem: Problem) -> list[Fix]:
    """Every fix a problem carries: `fix_of`'s, then its `alternatives` (malformed ones
    left out)."""
    first = fix_of(problem)
    out = [first] if first is not None else []
    alts = (problem.data or {}).get("alternatives")
    for alt in alts if isinstance(alts, list) else ():
        fix = _parse(alt, problem.code) if isinstance(alt, dict) else None
        if fix is not None:
            out.append(fix)
    return out


def fix_of(problem: Problem) -> Fix | None:
    """The fix a problem carries, or None (malformed data is no fix, never an exception)."""
    return _parse(problem.data or {}, problem.code)


def _parse(data: dict, code: str) -> Fix | None:
    raw, title = data.get("edits"), data.get("title")
    if not isinstance(raw, (list, tuple)) or not raw or not isinstance(title, str):
        return None
    edits = []
    for e in raw:
        if not (isinstance(e, (list, tuple)) and len(e) == 5 and isinstance(e[4], str)
                and all(isinstance(v, int) and v >= 0 for v in e[:4])):
            return None
        edits.append(TextEdit(Span(*e[:4]), e[4]))
    return Fix(title, tuple(edits), code, str(data.get("fix") or ""))


def _offsets(text: str) -> list[int]:
    """Offset of the start of each line (split as the tokenizer does: \\r\\n, \\r, \\n)."""
    starts, i, n = [0], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\r" and i + 1 < n and text[i + 1] == "\n":
            i += 1
        if ch in "\r\n":
            starts.append(i + 1)
        i += 1
    return starts


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """`text` with `edits` applied (all positions refer to the original text)."""
    starts = _offsets(text)

    def offset(line: int, col: int) -> int:
        if line > len(starts):
            return len(text)
        return min(starts[line - 1] + col, len(text))

    spans = sorted(((offset(e.span.line, e.span.column), offset(e.span.end_line, e.span.end_column),
                     e.new_text) for e in edits), key=lambda t: (t[0], t[1]))
    for (a1, a2, _), (b1, _b2, _t) in zip(spans, spans[1:]):
        if b1 < a2:
            raise ValueError("overlapping edits")
    out, at = [], 0
    for s, e, t in spans:
        out.append(text[at:s])
        out.append(t)
        at = max(at, e)
    out.append(text[at:])
    return "".join(out)
