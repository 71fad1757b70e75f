"""The positioned YAML tree: scalar, mapping and sequence nodes, the composer's result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stepsmith.runner.problems import Problem, Span


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


# the steps of a manifest document (a LoadResult), by node: the editor and the workspace read
# them before the manifest validates
def step_items(doc) -> list[tuple[int, Any]]:
    root = doc.root
    if not isinstance(root, YMap):
        return []
    steps = root.get("steps")
    if not isinstance(steps, YSeq):
        return []
    return [(i, item) for i, item in enumerate(steps.items) if isinstance(item, YMap)]


def step_id_of(item) -> str | None:
    idn = item.get("id")
    return idn.data if isinstance(idn, YScalar) and isinstance(idn.data, str) else None


def step_code_of(item) -> str | None:
    c = item.get("code")
    return c.data if isinstance(c, YScalar) and isinstance(c.data, str) else None
