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

import bisect
import math
import re
import threading
from dataclasses import dataclass

import yaml
from stepsmith.runner.problems import Problem, Span

try:  # libyaml: ~20x faster than the pure-Python parser
    from yaml._yaml import CParser as _Parser  # type: ignore[attr-defined]

    HAS_LIBYAML = True
except Exception:  # pragma: no cover - depends on the build
    _Parser = None
    HAS_LIBYAML = False

MAX_DEPTH = 64  # mapping/sequence nesting levels
MAX_MANIFEST_CHARS = 2 * 1024 * 1024  # 2 MiB of text; a 2,000-step manifest is ~0.5 MiB

_STR_TAG = "tag:yaml.org,2002:str"
_EXTRA_LINE_BREAKS = {0x85: " ", 0x2028: " ", 0x2029: " "}
_ALLOWED_SCALAR_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "!",
}
_ALLOWED_COLLECTION_TAGS = {"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "!"}

_NULL_RE = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT_RE = re.compile(r"^[-+]?[0-9]+$")
_INT_OCT_RE = re.compile(r"^0o[0-7]+$")
_INT_HEX_RE = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT_RE = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF_RE = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN_RE = re.compile(r"^\.(?:nan|NaN|NAN)$")
_MAYBE_NON_STR = frozenset("~nNtTfF0123456789+-.")


class YNode:
    """A positioned YAML node. `span` covers the value as written; `data` is its plain value.

    Positions are kept as a plain tuple `pos` (line 1-based, column 0-based, end line, end
    column) and turned into a `Span` only when asked: building thousands of frozen dataclasses
    per keystroke is measurable."""

    __slots__ = ("_span", "data", "pos")
    kind = "node"

    @property
    def span(self) -> Span:
        sp = self._span
        if sp is None:
            sp = self._span = Span(*self.pos)
        return sp


class YScalar(YNode):
    __slots__ = ("style", "tagged", "text")
    kind = "scalar"

    def __init__(self, pos, data, style, text, tagged):
        self.pos = pos
        self._span = None
        self.data = data
        self.style = style  # "" plain, "'" / '"' quoted, "|" / ">" block
        self.text = text  # the scalar's string value before resolution
        self.tagged = tagged  # True when written with an explicit tag or anchor

    def __repr__(self):
        return f"YScalar({self.data!r} @ {self.pos[0]}:{self.pos[1]})"


class YPair:
    __slots__ = ("key", "value")

    def __init__(self, key: YScalar, value: YNode):
        self.key = key
        self.value = value

    @property
    def name(self) -> str:
        return self.key.text


class YMap(YNode):
    __slots__ = ("flow", "index", "pairs")
    kind = "mapping"

    def __init__(self, pos, flow):
        self.pos = pos
        self._span = None
        self.pairs: list[YPair] = []
        self.index: dict[str, YPair] = {}  # first occurrence of each key
        self.data: dict = {}
        self.flow = flow

    def get(self, key: str) -> YNode | None:
        pair = self.index.get(key)
        return pair.value if pair is not None else None

    def pair(self, key: str) -> YPair | None:
        return self.index.get(key)

    def __repr__(self):
        return f"YMap({list(self.index)} @ {self.pos[0]}:{self.pos[1]})"


class YSeq(YNode):
    __slots__ = ("flow", "items")
    kind = "sequence"

    def __init__(self, pos, flow):
        self.pos = pos
        self._span = None
        self.items: list[YNode] = []
        self.data: list = []
        self.flow = flow

    def __repr__(self):
        return f"YSeq(len={len(self.items)} @ {self.pos[0]}:{self.pos[1]})"


@dataclass
class LoadResult:
    root: YNode | None
    problems: list[Problem]


def _span(start, end) -> Span:
    return Span(start.line + 1, start.column, end.line + 1, end.column)


def _point(mark, width: int = 1) -> Span:
    return Span(mark.line + 1, mark.column, mark.line + 1, mark.column + width)


def _problem(code: str, message: str, span: Span, path: str | None) -> Problem:
    from stepsmith.runner.rules.manifest_rules import rationale

    return Problem(code=code, message=message, span=span, path=path, rationale=rationale(code))


def _resolve_plain(text: str):
    """YAML 1.2 core schema for an untagged plain scalar."""
    if not text or text[0] in _MAYBE_NON_STR:
        if _NULL_RE.match(text):
            return None
        b = _BOOL.get(text)
        if b is not None:
            return b
        if _INT_RE.match(text):
            return int(text, 10)
        if _INT_OCT_RE.match(text):
            return int(text[2:], 8)
        if _INT_HEX_RE.match(text):
            return int(text[2:], 16)
        if _FLOAT_RE.match(text):
            return float(text)
        if _INF_RE.match(text):
            return -math.inf if text[0] == "-" else math.inf
        if _NAN_RE.match(text):
            return math.nan
    return text


def _resolve_tagged(text: str, tag: str):
    """Explicit core tags. Raises ValueError when the text does not fit the tag."""
    if tag in (_STR_TAG, "!"):
        return text
    value = _resolve_plain(text)
    kind = tag.rsplit(":", 1)[-1]
    if kind == "int" and type(value) is int:
        return value
    if kind == "float" and type(value) in (int, float):
        return float(value)
    if kind == "bool" and type(value) is bool:
        return value
    if kind == "null" and value is None:
        return None
    raise ValueError(f"{text!r} is not a valid !!{kind}")


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


def describe_mark_error(exc: yaml.MarkedYAMLError, text: str) -> tuple[str, Span]:
    mark = exc.problem_mark or exc.context_mark
    problem = (exc.problem or exc.context or "invalid YAML").strip()
    if mark is None:
        return f"YAML syntax error: {problem}", Span(1, 0, 1, 1)
    cm = exc.context_mark
    if exc.context and "quoted scalar" in exc.context and cm is not None:
        # an unclosed quote: the useful position is where the string opens
        quote = "double" if _char_at(text, cm.line, cm.column) == '"' else "single"
        return (
            f"YAML syntax error: unclosed {quote} quote; the string starting here never ends "
            f"({problem} at line {mark.line + 1})",
            Span(cm.line + 1, cm.column, cm.line + 1, cm.column + 1),
        )
    line, col = mark.line, mark.column
    message = f"YAML syntax error: {problem}"
    if _char_at(text, line, col) == "\t":
        message = "YAML syntax error: tab character; YAML indentation must use spaces"
    elif exc.context and cm is not None and exc.problem_mark is not None:
        message += f" (while {exc.context.strip().removeprefix('while ')} at line {cm.line + 1}, column {cm.column + 1})"
    hint = _unbalanced_quote_before(text, line)
    if hint is not None and hint[0] < line:
        message += f"; possibly caused by the quote opened at line {hint[0] + 1}, column {hint[1] + 1}"
    return message, Span(line + 1, col, line + 1, col + 1)


def _char_at(text: str, line: int, col: int) -> str:
    start = 0
    for _ in range(line):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    row = text[start:] if end < 0 else text[start:end]
    return row[col] if col < len(row) else ""


def _unbalanced_quote_before(text: str, last_line: int) -> tuple[int, int] | None:
    """First line (up to `last_line`) with an odd number of unescaped double quotes: a likely
    unclosed string that swallowed what follows. A hint only; positions stay the parser's."""
    for i, row in enumerate(text.split("\n", last_line + 1)[: last_line + 1]):
        if '"' not in row:
            continue
        idx = [j for j, ch in enumerate(row) if ch == '"' and (j == 0 or row[j - 1] != "\\")]
        if len(idx) % 2 == 1:
            return i, idx[-1] if len(idx) == 1 else idx[0]
    return None


def load(text: str, path: str | None = None) -> LoadResult:
    """Compose `text` into a positioned tree. Never raises."""
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
    if "\u2028" in text or "\u2029" in text or "\x85" in text:
        # YAML 1.1 (libyaml) breaks lines at NEL/LS/PS; editors and LSP do not. Read them as
        # spaces (what YAML folds a line break into) so every line number matches the editor's.
        text = text.translate(_EXTRA_LINE_BREAKS)
    reused = _reuse_after_one_line_edit(path, text)
    if reused is not None:
        return reused
    try:
        result = _compose(text, path, problems)
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
        scalar = YScalar((line_no, start, line_no, len(new_line)), _resolve_plain(fresh), "", fresh, False)
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


def _compose(text: str, path: str | None, problems: list[Problem]) -> LoadResult:
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
            if ev.anchor is None and ev.tag is None:
                style = ev.style
                node = YScalar((sm.line + 1, sm.column, em.line + 1, em.column),
                               value, style, value, False)
                if cur_is_map and key is None:
                    key = node  # keys are taken as text: no resolution
                    continue
                if style == "":
                    node.data = resolve_plain(value)
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
                pos = (sm.line + 1, sm.column, em.line + 1, em.column)
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


def node_at(root: YNode | None, key_path) -> YNode | None:
    node = root
    for part in key_path:
        if node is None:
            return None
        if isinstance(node, YMap) and isinstance(part, str):
            node = node.get(part)
        elif isinstance(node, YSeq) and isinstance(part, int) and -len(node.items) <= part < len(node.items):
            node = node.items[part]
        else:
            return None
    return node
