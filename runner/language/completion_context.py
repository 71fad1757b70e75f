"""Where the cursor is in a manifest, read from the raw lines (no YAML parse).

Completion happens mid-edit, when the YAML often does not parse (`code: steps/match.py:` — the
trailing `: ` is a mapping indicator; `{connection: ` is an unclosed flow map), so the context
comes from the text: the block structure above the cursor by indentation (keys that open a
block, `- ` list items, counted so a step's index is known), then the cursor's own line up to
the cursor, flow collections and quotes included. The result is a key path in the manifest
model's terms (`("steps", 2, "inputs", "rates")`) and what is being typed there.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from stepsmith.runner.lines import strip_eol

Position = Literal["key", "value", "item", "entry"]

#: a block mapping key at the start of a line's content: `key:` followed by a space or the end
KEY_RE = re.compile(r"""(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<plain>[^\s#'"{}\[\],:&*!|>%@`-][^#{}\[\],]*?|-[^\s#{}\[\],][^#{}\[\],]*?))[ \t]*:(?=[ \t]|$)""")
_FLOW_END = ",{}[]"


@dataclass(frozen=True)
class YamlContext:
    """`path`: the mapping whose key is typed ("key"; a list there: a new item whose `- ` is
    not typed yet), the key whose value is typed ("value"),
    the list whose item is typed ("item"), or — right after `- ` with no `key:` yet ("entry") —
    the new list item (`path[-1]` is its index): a key of it or a plain item, by the schema."""

    line: int
    path: tuple[str | int, ...]
    position: Position
    token: str  # typed from token_start up to the cursor (without an opening quote)
    token_start: int  # code-point column
    quote: str = ""  # the opening quote of the token, if any
    flow: bool = False  # inside a flow collection ({...} / [...])
    new_item: bool = False  # the cursor line is `- ` and nothing else before the cursor


@dataclass(frozen=True)
class Layout:
    indent: int
    markers: tuple[int, ...]  # columns of the `- ` item markers at the start of the line
    content_col: int
    key: str | None  # the block key the content starts with
    opens: bool  # the key has no value on this line: a block follows


def layout(raw: str) -> Layout | None:
    """The structure of one line, None for a blank or comment-only line."""
    indent = len(raw) - len(raw.lstrip(" "))
    i, markers = indent, []
    while i < len(raw) and raw[i] == "-" and (i + 1 == len(raw) or raw[i + 1] in " \t"):
        markers.append(i)
        i += 1
        while i < len(raw) and raw[i] in " \t":
            i += 1
    content = raw[i:]
    if not markers and (not content.strip() or content.lstrip().startswith("#")):
        return None
    m = KEY_RE.match(content)
    key, opens = None, False
    if m:
        key = next(g for g in (m.group("dq"), m.group("sq"), m.group("plain")) if g is not None)
        rest = content[m.end():].strip()
        opens = not rest or rest.startswith("#")
    return Layout(indent, tuple(markers), i, key, opens)


def _ancestry(lines: Sequence[str], idx: int, col: int, is_item: bool) -> list | None:
    """The key path of the node starting at column `col` of line `idx` (0-based), from the
    lines above it; None when it is inside something completion does not enter (a block
    scalar, a multi-line flow collection, a plain scalar continued)."""
    out: list = []
    while True:
        siblings, parent = 0, None
        for i in range(idx - 1, -1, -1):
            lay = layout(strip_eol(lines[i]))
            if lay is None or lay.indent > col:
                continue
            if lay.indent == col:
                if is_item and lay.markers:
                    siblings += 1
                    continue
                if not is_item and not lay.markers:
                    continue  # a sibling key
                if is_item and lay.key is not None and lay.opens:
                    parent = (i, lay, [lay.key])  # a sequence not indented under its key
                    break
                return None
            inner = [m for m in lay.markers if m < col]
            elems: list = [0] * max(len(inner) - 1, 0)  # a later `- ` on a line starts a list
            if col > lay.content_col:
                if lay.key is None:
                    if len(strip_eol(lines[i])) > lay.content_col:
                        return None  # under a plain scalar
                elif lay.opens:
                    elems.append(lay.key)
                else:
                    return None
            parent = (i, lay, elems)
            break
        if is_item:
            out.insert(0, siblings)
        if parent is None:
            return out
        i, lay, elems = parent
        out[0:0] = elems
        if lay.indent == col and not lay.markers:  # indentless sequence: continue from its key
            idx, is_item = i, False
        else:
            idx, col, is_item = i, lay.indent, bool(lay.markers)
            if lay.markers:
                col = lay.markers[0]


def _quoted(s: str, start: int, base: int, path: list, position: Position, flow: bool):
    """The token at `s[start:]` when it starts with a quote still open at the cursor."""
    q = s[start]
    rest = s[start + 1:]
    if q in rest:
        return None  # the cursor is after a closed string
    return YamlContext(0, tuple(path), position, rest, base + start + 1, q, flow)


def _token(s: str, start: int, base: int, path: list, position: Position, flow: bool):
    if start < len(s) and s[start] in "\"'":
        return _quoted(s, start, base, path, position, flow)
    return YamlContext(0, tuple(path), position, s[start:], base + start, "", flow)


def _skip(s: str, i: int) -> int:
    while i < len(s) and s[i] in " \t":
        i += 1
    return i


def _flow(s: str, i: int, base: int, path: list):
    """Inside flow collections from `s[i]` (a `{` or `[`) to the end (the cursor)."""
    frames: list[list] = []  # [kind, state]: map "key" | "value" | "done"; seq "item" | "done"
    while True:
        if i >= len(s):
            break
        c = s[i]
        if c in "{[":
            frames.append(["map", "key"] if c == "{" else ["seq", "item"])
            if c == "[":
                path.append(0)
            i = _skip(s, i + 1)
            continue
        if not frames:
            return None  # text after the flow collection closed
        top = frames[-1]
        if c in "}]":
            if top[0] == "map" and top[1] in ("value", "done"):
                path.pop()
            if top[0] == "seq":
                path.pop()
            frames.pop()
            if not frames:
                return None
            frames[-1][1] = "done"
            i = _skip(s, i + 1)
            continue
        if c == ",":
            if top[0] == "map":
                if top[1] in ("value", "done"):
                    path.pop()
                top[1] = "key"
            else:
                path[-1] += 1
                top[1] = "item"
            i = _skip(s, i + 1)
            continue
        if top[1] == "done":
            return None
        # a scalar: quoted or plain, up to its end or the cursor
        j = i
        if c in "\"'":
            close = s.find(c, i + 1)
            if close < 0:
                return _finish(s, i, base, path, top)
            j = close + 1
        else:
            while j < len(s) and s[j] not in _FLOW_END and not (
                    s[j] == ":" and (j + 1 == len(s) or s[j + 1] in " \t,{}[]")):
                j += 1
            if j >= len(s):
                return _finish(s, i, base, path, top)
        k = _skip(s, j)
        if k < len(s) and s[k] == ":" and top[0] == "map" and top[1] == "key":
            path.append(s[i:j].strip().strip("\"'"))
            top[1] = "value"
            i = _skip(s, k + 1)
            continue
        top[1] = "done"
        i = k
    if not frames:
        return None
    top = frames[-1]
    if top[1] == "done":
        return None
    return _finish(s, len(s), base, path, top)


def _finish(s: str, i: int, base: int, path: list, top: list):
    if top[0] == "map":
        position: Position = "key" if top[1] == "key" else "value"
        return _token(s, i, base, path, position, True)
    path.pop()
    return _token(s, i, base, path, "item", True)


def yaml_context(lines: Sequence[str], line: int, column: int) -> YamlContext | None:
    """The context at (1-based line, code-point column), None where nothing is completed
    (a comment, a block scalar, after a closed string...)."""
    if not 1 <= line <= len(lines):
        return None
    prefix = strip_eol(lines[line - 1])[:column]
    if "#" in prefix and re.search(r"(^|\s)#", _unquoted(prefix)):
        return None
    lay = layout(prefix) or Layout(len(prefix), (), len(prefix), None, False)
    idx = line - 1
    if lay.markers:
        path = _ancestry(lines, idx, lay.markers[0], True)
        if path is None:
            return None
        path += [0] * (len(lay.markers) - 1)
    else:
        path = _ancestry(lines, idx, lay.indent, False)
        if path is None and not prefix.strip():
            # a blank line among `- ` items: a new item, its `- ` not typed yet
            path = _ancestry(lines, idx, lay.indent, True)
            if path is None:
                return None
            return YamlContext(line, tuple(path[:-1]), "key", "", column)
        if path is None:
            return None
    s, base = prefix[lay.content_col:], lay.content_col
    m = KEY_RE.match(s)
    if m:
        key = next(g for g in (m.group("dq"), m.group("sq"), m.group("plain")) if g is not None)
        path.append(key)
        i = _skip(s, m.end())
        if i < len(s) and s[i] in "{[":
            ctx = _flow(s, i, base, path)
        else:
            ctx = _token(s, i, base, path, "value", False)
    elif s[:1] in ("{", "["):
        ctx = _flow(s, 0, base, path)
    else:
        ctx = _token(s, 0, base, path, "entry" if lay.markers else "key", False)
        if ctx is not None and lay.markers and not s:
            ctx = dataclasses.replace(ctx, new_item=True)
    return dataclasses.replace(ctx, line=line) if ctx is not None else None


def _unquoted(s: str) -> str:
    """`s` with the insides of quoted strings blanked (a `#` in a string is no comment)."""
    return re.sub(r""""[^"]*("|$)|'[^']*('|$)""", lambda m: " " * len(m.group(0)), s)
