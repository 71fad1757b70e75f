"""The one-line-edit shortcut: a keystroke that edits one scalar reuses the previous tree."""

from __future__ import annotations

import bisect
import re
import threading

from .nodes import LoadResult, YMap, YNode, YPair, YScalar, YSeq
from .scalars import _resolve_plain

# ------------------------------------------------------------ one-line edits (the keystroke)
#
# The language server re-checks a manifest on every keystroke, and most keystrokes edit the
# text of one scalar value on one line (an explanation, a code reference, an input). Such an
# edit cannot change how anything else in the document reads, so the new tree is the previous
# one with that scalar replaced and the nodes above it copied (path copying: the previous tree
# is never modified, the untouched subtrees are shared; nobody mutates a composed tree).
#
# The shortcut applies only when *all* of these hold, otherwise the document is composed in
# full: the previous text for the same `path` composed without a fatal problem; the new text
# has the same lines except one; on that line the previous tree had a block-mapping key and a
# single-line plain or quoted (no escapes) untagged value running to the end of the line; the
# new line keeps everything before that value byte for byte; and the new value is a plain or
# quoted scalar from a deliberately small grammar (no comment, no ': ', no indicator first,
# no flow brackets, no trailing space, no control or line-break characters). Such a scalar is
# one token whatever surrounds it, and it cannot start or end anything on other lines.

_SAFE_PLAIN = re.compile(
    r"[A-Za-z0-9](?:[^\x00-\x20\x7f-\x9f:#\[\]{}\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]"
    r"|:(?=[^\s])|(?<! )#| (?=[^\s#]))*"
)
_SAFE_QUOTED = {
    '"': re.compile(r'"[^"\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]*"'),
    "'": re.compile(r"'[^'\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]*'"),
}
_RECENT_MAX = 8  # documents (paths) remembered
_RECENT_CHARS = 2 * 1024 * 1024  # and at most this much text between them (trees are ~50x)
_RECENT: dict = {}  # path -> (text, lines, LoadResult); insertion order = recency
_RECENT_LOCK = threading.Lock()


def _store(path: str | None, entry: tuple) -> None:
    if len(entry[0]) > _RECENT_CHARS // 4:
        with _RECENT_LOCK:
            _RECENT.pop(path, None)
        return
    with _RECENT_LOCK:
        _RECENT.pop(path, None)
        _RECENT[path] = entry
        total = sum(len(e[0]) for e in _RECENT.values())
        while len(_RECENT) > _RECENT_MAX or total > _RECENT_CHARS:
            oldest = next(iter(_RECENT))
            total -= len(_RECENT.pop(oldest)[0])


def _remember(path: str | None, text: str, result: LoadResult) -> None:
    if result.root is None or any(p.code != "SM002" for p in result.problems):
        return  # keep the last good text: the edit that repairs this one can start from it
    _store(path, (text, None, LoadResult(result.root, list(result.problems))))


def clear_cache() -> None:
    with _RECENT_LOCK:
        _RECENT.clear()


def _source_of(node: YScalar) -> str | None:
    """How a single-line untagged scalar was written, when we can say exactly."""
    if node.tagged:
        return None
    if node.style == "":
        return node.text
    pattern = _SAFE_QUOTED.get(node.style)
    if pattern is None:
        return None
    written = node.style + node.text + node.style
    return written if pattern.fullmatch(written) else None


def _reuse_after_one_line_edit(path: str | None, text: str) -> LoadResult | None:
    with _RECENT_LOCK:
        entry = _RECENT.get(path)
    if entry is None:
        return None
    old_text, old_lines, old = entry
    if text == old_text:
        return LoadResult(old.root, list(old.problems))
    try:
        return _reuse(path, text, old_text, old_lines, old)
    except Exception:  # noqa: BLE001  # pragma: no cover - defensive: compose in full instead
        return None


def _reuse(path, text, old_text, old_lines, old) -> LoadResult | None:
    if abs(len(text) - len(old_text)) > 4096:
        return None
    if old_lines is None:
        old_lines = old_text.split("\n")
    new_lines = text.split("\n")
    if len(new_lines) != len(old_lines):
        return None
    changed = -1
    for i, (a, b) in enumerate(zip(old_lines, new_lines)):
        if a != b:
            if changed >= 0:
                return None
            changed = i
    if changed < 0:
        return None
    line_no = changed + 1
    old_line = old_lines[changed]
    new_line = new_lines[changed]

    # find the value scalar on that line, remembering the way down
    chain: list[tuple] = []  # (container, index)
    node = old.root
    while True:
        if node.__class__ is YMap:
            if node.flow:
                return None
            pairs = node.pairs
            j = bisect.bisect_right(pairs, line_no, key=_pair_line) - 1
            if j < 0:
                return None
            pair = pairs[j]
            chain.append((node, j))
            value = pair.value
            if pair.key.pos[0] == line_no:
                if value.__class__ is not YScalar or pair.key.pos[2] != line_no:
                    return None
                break
            node = value
        elif node.__class__ is YSeq:
            if node.flow:
                return None
            items = node.items
            j = bisect.bisect_right(items, line_no, key=_node_line) - 1
            if j < 0:
                return None
            chain.append((node, j))
            node = items[j]
        else:
            return None
        if node.__class__ is YScalar or not (node.pos[0] <= line_no <= node.pos[2]):
            return None
    vp = value.pos
    if vp[0] != line_no or vp[2] != line_no or vp[3] != len(old_line):
        return None
    start = vp[1]
    written = _source_of(value)
    if (not written or start == 0 or old_line[start - 1] != " " or old_line[start:] != written
            or not new_line.startswith(old_line[:start])):
        return None
    fresh = new_line[start:]
    style = value.style
    if style == "":
        if _SAFE_PLAIN.fullmatch(fresh) is None:
            return None
        try:
            data = _resolve_plain(fresh)
        except ValueError:  # a number too long: the full compose reports it at the value
            return None
        scalar = YScalar((line_no, start, line_no, len(new_line)), data, "", fresh, False)
    else:
        if _SAFE_QUOTED[style].fullmatch(fresh) is None:
            return None
        inner = fresh[1:-1]
        scalar = YScalar((line_no, start, line_no, len(new_line)), inner, style, inner, False)

    # copy the nodes above it (the previous tree stays as it was)
    child = scalar
    for container, j in reversed(chain):
        last = j == len(container.data if container.__class__ is YSeq else container.pairs) - 1
        pos = container.pos
        if last:  # a block collection ends where its last value ends
            pos = (pos[0], pos[1], child.pos[2], child.pos[3])
        if container.__class__ is YMap:
            copy = YMap(pos, False)
            old_pair = container.pairs[j]
            pair = YPair(old_pair.key, child)
            copy.pairs = list(container.pairs)
            copy.pairs[j] = pair
            copy.index = dict(container.index)
            copy.data = dict(container.data)
            name = old_pair.key.text
            if container.index.get(name) is old_pair:
                copy.index[name] = pair
                copy.data[name] = child.data
        else:
            copy = YSeq(pos, False)
            copy.items = list(container.items)
            copy.items[j] = child
            copy.data = list(container.data)
            copy.data[j] = child.data
        child = copy
    result = LoadResult(child, list(old.problems))
    _store(path, (text, new_lines, result))
    return LoadResult(child, list(old.problems))


def _pair_line(pair: YPair) -> int:
    return pair.key.pos[0]


def _node_line(node: YNode) -> int:
    return node.pos[0]
