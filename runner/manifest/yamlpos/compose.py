"""The iterative composer: libyaml's events to a positioned tree, refusing what a manifest may
not hold (anchors, aliases, merge keys, custom tags, several documents, deep nesting)."""

from __future__ import annotations

import yaml
from stepsmith.runner.problems import Problem, Span

from .errors import _problem
from .nodes import LoadResult, YMap, YNode, YPair, YScalar, YSeq
from .scalars import _resolve_plain, _resolve_tagged

try:  # libyaml: ~20x faster than the pure-Python parser
    from yaml._yaml import CParser as _Parser  # type: ignore[attr-defined]

    HAS_LIBYAML = True
except Exception:  # pragma: no cover - depends on the build
    _Parser = None
    HAS_LIBYAML = False

MAX_DEPTH = 64  # mapping/sequence nesting levels

_ALLOWED_SCALAR_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "!",
}
_ALLOWED_COLLECTION_TAGS = {"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "!"}


def _span(start, end) -> Span:
    return Span(start.line + 1, start.column, end.line + 1, end.column)


def _point(mark, width: int = 1) -> Span:
    return Span(mark.line + 1, mark.column, mark.line + 1, mark.column + width)


def _flow_overflow_span(text: str) -> Span | None:
    """Where flow nesting first goes past MAX_DEPTH, found by counting brackets outside quotes
    and comments: the place our own composer would have stopped, used when libyaml's limit
    fires first."""
    depth = 0
    for line_no, line in enumerate(text.split("\n"), start=1):
        quote = ""
        for col, ch in enumerate(line):
            if quote:
                if ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "#" and (col == 0 or line[col - 1] in " \t"):
                break
            elif ch in "[{":
                depth += 1
                if depth > MAX_DEPTH:
                    return Span(line_no, col, line_no, col + 1)
            elif ch in "]}":
                depth = max(0, depth - 1)
    return None


def _after_tag(text: str, sm, em) -> tuple[int, int]:
    """Where a tagged scalar's own text starts (line 1-based, column): past the tag, the
    spaces, comments and line breaks after it (`!!int 3` is at the `3`). A value with no text
    of its own is where the event ends."""
    i, end, line, col = sm.index, em.index, sm.line + 1, sm.column
    while i < end and text[i] not in " \t\r\n":
        i += 1
        col += 1
    while i < end:
        ch = text[i]
        if ch in " \t":
            i += 1
            col += 1
        elif ch == "#":
            while i < end and text[i] not in "\r\n":
                i += 1
        elif ch in "\r\n":
            i += 2 if text.startswith("\r\n", i) else 1
            line, col = line + 1, 0
        else:
            return line, col
    return em.line + 1, em.column


def _compose(text: str, path: str | None, problems: list[Problem],
             restore: dict[int, str] | None = None) -> LoadResult:
    """`restore` maps stand-in characters back to what the text held (see `load`)."""
    if _Parser is not None:
        parser = _Parser(text)
        get_event = parser.get_event
    else:  # pragma: no cover
        loader = yaml.SafeLoader(text)
        get_event = loader.get_event

    ScalarEvent = yaml.ScalarEvent
    MappingStartEvent = yaml.MappingStartEvent
    SequenceStartEvent = yaml.SequenceStartEvent
    MappingEndEvent = yaml.MappingEndEvent
    SequenceEndEvent = yaml.SequenceEndEvent
    AliasEvent = yaml.AliasEvent
    DocumentStartEvent = yaml.DocumentStartEvent
    StreamEndEvent = yaml.StreamEndEvent
    resolve_plain = _resolve_plain

    # The innermost open collection and its pending key live in locals (hot loop);
    # outer ones on `stack`.
    stack: list[tuple] = []
    cur = None  # YMap | YSeq | None
    cur_is_map = False
    key = None  # pending YScalar key while `cur` is a mapping
    root: YNode | None = None
    documents = 0

    def fatal(code, message, span):
        problems.append(_problem(code, message, span, path))
        return LoadResult(None, problems)

    while True:
        ev = get_event()
        if ev is None:
            break
        cls = ev.__class__
        if cls is ScalarEvent:
            sm = ev.start_mark
            em = ev.end_mark
            value = ev.value
            if restore is not None:
                value = value.translate(restore)
            if ev.anchor is None and ev.tag is None:
                style = ev.style
                node = YScalar((sm.line + 1, sm.column, em.line + 1, em.column),
                               value, style, value, False)
                if cur_is_map and key is None:
                    key = node  # keys are taken as text: no resolution
                    continue
                if style == "":
                    try:
                        node.data = resolve_plain(value)
                    except ValueError as exc:  # a number too long to convert
                        return fatal("SM005", str(exc), node.span)
            else:
                if ev.anchor is not None:
                    return fatal(
                        "SM009",
                        "YAML anchors (&name) are not supported in a manifest; write the value out",
                        _point(sm, len(ev.anchor) + 1),
                    )
                tag = ev.tag
                if tag not in _ALLOWED_SCALAR_TAGS:
                    return fatal("SM009", f"YAML tag {tag!r} is not supported in a manifest", _point(sm))
                pos = (*_after_tag(text, sm, em), em.line + 1, em.column)
                try:
                    data = _resolve_tagged(value, tag)
                except ValueError as exc:
                    return fatal("SM005", str(exc), Span(*pos))
                node = YScalar(pos, data, ev.style, value, True)
                if cur_is_map and key is None:
                    key = node
                    continue
        elif cls is MappingStartEvent or cls is SequenceStartEvent:
            sm = ev.start_mark
            if ev.anchor is not None:
                return fatal(
                    "SM009",
                    "YAML anchors (&name) are not supported in a manifest; write the value out",
                    _point(sm, len(ev.anchor) + 1),
                )
            if ev.tag is not None and ev.tag not in _ALLOWED_COLLECTION_TAGS:
                return fatal("SM009", f"YAML tag {ev.tag!r} is not supported in a manifest", _point(sm))
            if len(stack) >= MAX_DEPTH:
                return fatal(
                    "SM007",
                    f"manifest is nested too deeply (more than {MAX_DEPTH} levels)",
                    _point(sm),
                )
            if cur_is_map and key is None:
                return fatal(
                    "SM009",
                    "a mapping key must be a plain value, not a "
                    + ("mapping" if cls is MappingStartEvent else "list"),
                    _point(sm),
                )
            pos = (sm.line + 1, sm.column, sm.line + 1, sm.column)
            flow = bool(ev.flow_style)
            stack.append((cur, cur_is_map, key))
            if cls is MappingStartEvent:
                cur = YMap(pos, flow)
                cur_is_map = True
            else:
                cur = YSeq(pos, flow)
                cur_is_map = False
            key = None
            continue
        elif cls is MappingEndEvent or cls is SequenceEndEvent:
            node = cur
            p = node.pos
            if node.flow:
                em = ev.end_mark
                node.pos = (p[0], p[1], em.line + 1, em.column)
            else:
                if cur_is_map:
                    last = node.pairs[-1].value if node.pairs else None
                else:
                    last = node.items[-1] if node.items else None
                if last is not None:
                    lp = last.pos
                    node.pos = (p[0], p[1], lp[2], lp[3])
            cur, cur_is_map, key = stack.pop()
        elif cls is AliasEvent:
            return fatal(
                "SM009",
                "YAML aliases (*name) are not supported in a manifest; write the value out",
                _point(ev.start_mark, len(ev.anchor or "") + 1),
            )
        elif cls is DocumentStartEvent:
            documents += 1
            if documents > 1:
                return fatal(
                    "SM009",
                    "a manifest holds exactly one YAML document; remove the '---' separator",
                    _point(ev.start_mark, 3),
                )
            continue
        elif cls is StreamEndEvent:
            break
        else:
            continue

        # attach `node` (a value) to its parent
        if cur is None:
            root = node
        elif cur_is_map:
            name = key.text
            if name == "<<" and key.style == "" and not key.tagged:
                return fatal("SM009", "YAML merge keys (<<) are not supported in a manifest", key.span)
            pair = YPair(key, node)
            cur.pairs.append(pair)
            first = cur.index.get(name)
            if first is not None:
                problems.append(
                    _problem(
                        "SM002",
                        f"duplicate key '{name}' (first defined at line {first.key.pos[0]}); "
                        "YAML would silently keep only one",
                        key.span,
                        path,
                    )
                )
            else:
                cur.index[name] = pair
                cur.data[name] = node.data
            key = None
        else:
            cur.items.append(node)
            cur.data.append(node.data)
    return LoadResult(root, problems)
