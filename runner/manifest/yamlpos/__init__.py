"""YAML with positions: a small, strict, iterative composer on top of libyaml's event stream.

Why not `yaml.compose`/`yaml.load`: pyyaml silently keeps the last of duplicate keys, expands
aliases (billion laughs), recurses per nesting level, and resolves YAML 1.1 scalars (`no` ->
False, `3.10` -> 3.1). Here:

- events come from the C parser when available (pure-Python parser otherwise) and are
  consumed lazily, so a hostile document is refused after a bounded amount of work;
- the tree keeps every key's and value's span (`Span`: line 1-based, column 0-based code points);
- duplicate keys are reported at the duplicate (the *first* occurrence is kept in `data`);
- anchors, aliases, merge keys, custom tags and multiple documents are refused (`SM009`):
  a manifest is reviewed by people and should read literally;
- nesting deeper than `MAX_DEPTH` (`SM007`) and documents larger than `MAX_MANIFEST_CHARS`
  (`SM007`) are refused before any deep work;
- plain scalars resolve by the YAML 1.2 core schema (null, true/false, int, float, else str);
  mapping keys are always taken as their text (JSON object keys are strings).

The composer never raises: it returns `(root, problems)`; `root` is None on a fatal error.
"""

from __future__ import annotations

import dataclasses
import re

import yaml
from stepsmith.runner.problems import Problem, Span, moved_along

from .compose import HAS_LIBYAML, MAX_DEPTH, _compose, _flow_overflow_span
from .errors import _problem, describe_mark_error
from .nodes import LoadResult, YMap, YNode, YPair, YScalar, YSeq, node_at
from .oneline import _remember, _reuse_after_one_line_edit, clear_cache

MAX_MANIFEST_CHARS = 2 * 1024 * 1024  # 2 MiB of text; a 2,000-step manifest is ~0.5 MiB
_YAML11_BREAKS = "\x85\u2028\u2029"


def _hide_yaml11_breaks(text: str) -> tuple[str, dict[int, str]]:
    """libyaml (YAML 1.1) breaks lines at NEL, LS and PS; YAML 1.2, editors and LSP do not: to
    1.2 they are ordinary characters, kept in every value. Each becomes a private-use stand-in
    the text does not hold (not even as an escape), one code point for one, so every position
    is unchanged; the composer puts the real character back into each value."""
    stand_ins: list[str] = []
    code = 0xE000
    while len(stand_ins) < len(_YAML11_BREAKS):
        ch = chr(code)
        code += 1
        if ch in text or re.search(rf"\\(?:u|U0000){code - 1:04X}", text, re.IGNORECASE):
            continue
        stand_ins.append(ch)
    hidden = text.translate({ord(b): s for b, s in zip(_YAML11_BREAKS, stand_ins, strict=True)})
    return hidden, {ord(s): b for b, s in zip(_YAML11_BREAKS, stand_ins, strict=True)}


def load(text: str, path: str | None = None) -> LoadResult:
    """Compose `text` into a positioned tree. Never raises. Positions are in the coordinates
    of `text` as given: a byte order mark is not content, but a buffer that keeps one counts
    it as line 1's first character (readers of files drop it as they decode)."""
    if text.startswith("\ufeff"):
        return _after_bom(_load(text[1:], path, cache=False))
    return _load(text, path)


def _after_bom(result: LoadResult) -> LoadResult:
    """`result` of the text after a BOM, moved one column on along line 1 (a fresh tree,
    never a cached one: `cache=False`)."""

    def moved(line: int, col: int) -> int:
        return col + 1 if line == 1 else col

    stack = [result.root] if result.root is not None else []
    while stack:
        node = stack.pop()
        line, col, end_line, end_col = node.pos
        node.pos = (line, moved(line, col), end_line, moved(end_line, end_col))
        node._span = None
        if isinstance(node, YMap):
            for pair in node.pairs:
                stack += [pair.key, pair.value]
        elif isinstance(node, YSeq):
            stack += node.items
    return dataclasses.replace(result, problems=[moved_along(p, 1, 1) for p in result.problems])


def _load(text: str, path: str | None, cache: bool = True) -> LoadResult:
    problems: list[Problem] = []
    if len(text) > MAX_MANIFEST_CHARS:
        size_mb = len(text.encode("utf-8", "surrogatepass")) / 1_000_000
        problems.append(
            _problem(
                "SM007",
                f"manifest is too large ({size_mb:.1f} MB); the limit is "
                f"{MAX_MANIFEST_CHARS // (1024 * 1024)} MiB",
                Span(1, 0, 1, 1),
                path,
            )
        )
        return LoadResult(None, problems)
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        col = nul - (text.rfind("\n", 0, nul) + 1)
        problems.append(
            _problem(
                "SM008",
                "manifest is not a text file (it contains a NUL byte)",
                Span(line, col, line, col + 1),
                path,
            )
        )
        return LoadResult(None, problems)
    restore = None
    if "\u2028" in text or "\u2029" in text or "\x85" in text:
        text, restore = _hide_yaml11_breaks(text)
    elif cache:  # the one-line shortcut reads values straight from the text: not with stand-ins
        reused = _reuse_after_one_line_edit(path, text)
        if reused is not None:
            return reused
    try:
        result = _compose(text, path, problems, restore)
        if restore is None and cache:
            _remember(path, text, result)
        return result
    except yaml.MarkedYAMLError as exc:
        message, span = describe_mark_error(exc, text)
        # libyaml >= 0.2.5 (PyYAML 6.0.4 wheels) stops at its own depth limit before ours:
        # the same refusal, so the same code.
        code = "SM007" if "maximum nesting depth" in (exc.problem or "") else "SM001"
        if code == "SM007":
            message = f"manifest is nested too deeply (more than {MAX_DEPTH} levels)"
            span = _flow_overflow_span(text) or span
        problems.append(_problem(code, message, span, path))
    except yaml.YAMLError as exc:
        problems.append(_problem("SM001", f"YAML error: {exc}", Span(1, 0, 1, 1), path))
    except (UnicodeError, ValueError) as exc:  # lone surrogates, int() digit limits, ...
        problems.append(_problem("SM001", f"YAML error: {exc}", Span(1, 0, 1, 1), path))
    except (MemoryError, RecursionError):
        problems.append(
            _problem("SM007", "manifest is too complex to load", Span(1, 0, 1, 1), path)
        )
    return LoadResult(None, problems)


__all__ = [
    "HAS_LIBYAML",
    "MAX_DEPTH",
    "MAX_MANIFEST_CHARS",
    "LoadResult",
    "YMap",
    "YNode",
    "YPair",
    "YScalar",
    "YSeq",
    "clear_cache",
    "describe_mark_error",
    "load",
    "node_at",
]
