"""Cross references inside one manifest, checked on the positioned tree.

These run even when the schema fails elsewhere (each check guards its own shapes), so an
author sees every problem at once. Every problem points at the exact key or value.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from stepsmith.runner.model.grammar import RESERVED_PARAMETERS
from stepsmith.runner.model.refs import (
    MalformedRef,
    SourceRef,
    StepOutputRef,
    parse_input_ref,
)
from stepsmith.runner.problems import Span

from .fixedits import replace
from .forbidden import find_forbidden_fields, is_forbidden_field
from .yamlpos import YMap, YNode, YPair, YScalar, YSeq

RESERVED_INPUTS = RESERVED_PARAMETERS
#: `Problem.data` of a finding the JSON Schema expresses too (model.py declares it there): a
#: schema-driven YAML tool reports it as well (an editor beside one may leave it to that tool).
EXPRESSED = {"schema": True}


def closest(name: str, choices) -> str | None:
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(name: str, choices) -> str:
    close = closest(name, choices)
    return f"; did you mean '{close}'?" if close else ""


def replace_fix(name: str, choices, span: Span, node: YNode | None = None,
                close: str | None = None) -> dict | None:
    """`Problem.data` for editors: the did-you-mean as an edit replacing `span` (the quotes
    of a quoted `node` kept), plus `replacement`, the name itself."""

    close = close if close is not None else closest(name, choices)
    return replace(span, close, node) if close else None


class Suggester:
    """The did-you-mean of one manifest's cross references: `closest`, asked once per unknown
    name, within a fixed budget of name comparisons per check. Each suggestion compares the
    name with every declared one, so a manifest whose N steps all refer to missing steps would
    cost N * N comparisons (600 steps: 10 times as long as 200); with the budget the check stays
    linear in the manifest's size. Past it, later unknown names get no suggestion (the problem
    itself is always reported); a manifest with a few typos never reaches it."""

    BUDGET = 3_000

    def __init__(self) -> None:
        self.left = self.BUDGET
        self._memo: dict[tuple[int, str], str | None] = {}

    def closest(self, name: str, choices) -> str | None:
        key = (id(choices), name)
        if key in self._memo:
            return self._memo[key]
        cost = len(choices)
        found = None
        if cost <= self.left:
            self.left -= cost
            found = closest(name, choices)
        self._memo[key] = found
        return found

    def sentence(self, name: str, choices) -> str:
        close = self.closest(name, choices)
        return f"; did you mean '{close}'?" if close else ""

    def fix(self, name: str, choices, span: Span, node: YNode | None = None) -> dict | None:
        close = self.closest(name, choices)
        return replace_fix(name, choices, span, node, close) if close else None


def value_span(pair: YPair) -> Span:
    """The value's span, or the key's when the value is empty (a zero-width span at a line end
    is invisible in editors)."""
    sp = pair.value.span
    if sp.line == sp.end_line and sp.column == sp.end_column:
        return pair.key.span
    return sp


def sub_span(node: YScalar, start: int, end: int) -> Span:
    """Span of characters [start, end) of a single-line scalar's text, when the written form
    maps 1:1 onto the value (plain, or quoted without escapes); else the whole scalar."""
    sp = node.span
    if node.tagged or sp.line != sp.end_line:
        return sp
    width = sp.end_column - sp.column
    if node.style == "" and width == len(node.text):
        off = 0
    elif node.style in ("'", '"') and width == len(node.text) + 2:
        off = 1
    else:
        return sp
    return Span(sp.line, sp.column + off + start, sp.line, sp.column + off + end)


def _declared(root: YMap, section: str) -> dict[str, YPair]:
    node = root.get(section)
    if isinstance(node, YMap):
        return node.index
    return {}


def _step_id(step: YNode) -> str | None:
    if isinstance(step, YMap):
        idn = step.get("id")
        if isinstance(idn, YScalar) and isinstance(idn.data, str):
            return idn.data
    return None


def check_crossrefs(root: YMap, add: Callable[..., None]) -> None:
    """`add(code, message, span, step=None, data=None)` receives every problem; `data` may
    carry `{"fix": "replace", "replacement": name}` (replace the span's text) for editors."""
    connections = _declared(root, "connections")
    sources = _declared(root, "sources")
    effects = _declared(root, "effects")
    suggest = Suggester()

    def check_connection_ref(pair: YPair | None, where: str, step: str | None = None):
        if pair is None or not isinstance(pair.value, YScalar):
            return
        name = pair.value.data
        if isinstance(name, str) and name not in connections:
            add(
                "SM101",
                f"{where} uses connection '{name}', which is not declared under `connections`"
                + suggest.sentence(name, connections),
                value_span(pair),
                step,
                suggest.fix(name, connections, value_span(pair), pair.value),
            )

    for section in ("sources", "effects"):
        node = root.get(section)
        if isinstance(node, YMap):
            for pair in node.pairs:
                if isinstance(pair.value, YMap):
                    kind = "source" if section == "sources" else "effect"
                    check_connection_ref(pair.value.pair("connection"), f"{kind} '{pair.name}'")
    trigger = root.get("trigger")
    tpair = root.pair("trigger")
    if isinstance(trigger, YMap):
        kinds = [p for p in trigger.pairs if p.name in ("schedule", "event", "manual")]
        if len(kinds) > 1:
            add(
                "SM005",
                "trigger has more than one of schedule, event, manual; keep exactly one",
                kinds[1].key.span, data=EXPRESSED,
            )
        elif not kinds and not any(True for p in trigger.pairs):
            add("SM005", "trigger needs exactly one of schedule, event or manual", tpair.key.span,
                data=EXPRESSED)  # minProperties/maxProperties 1 in the schema
        event = trigger.get("event")
        if isinstance(event, YMap):
            check_connection_ref(event.pair("connection"), "the event trigger")

    steps = root.get("steps")
    if not isinstance(steps, YSeq):
        return

    # ids: duplicates at the second occurrence
    ids: dict[str, YScalar] = {}
    for step in steps.items:
        if not isinstance(step, YMap):
            continue
        idn = step.get("id")
        if isinstance(idn, YScalar) and isinstance(idn.data, str):
            first = ids.get(idn.data)
            if first is not None:
                add(
                    "SM106",
                    f"duplicate step id '{idn.data}' (first used at line {first.span.line})",
                    idn.span,
                    idn.data,
                )
            else:
                ids[idn.data] = idn

    # per-step references; wiring edges for the cycle check
    edges: dict[str, list[tuple[str, YNode]]] = {}
    for step in steps.items:
        if not isinstance(step, YMap):
            continue
        sid = _step_id(step)
        for section, declared, code, noun in (
            ("connections", connections, "SM101", "connection"),
            ("effects", effects, "SM103", "effect"),
        ):
            lst = step.get(section)
            if not isinstance(lst, YSeq):
                continue
            seen: dict[str, YNode] = {}
            for item in lst.items:
                if not isinstance(item, YScalar) or not isinstance(item.data, str):
                    continue
                name = item.data
                if name not in declared:
                    add(
                        code,
                        f"step uses {noun} '{name}', which is not declared under `{section}`"
                        + suggest.sentence(name, declared),
                        item.span,
                        sid,
                        suggest.fix(name, declared, item.span, item),
                    )
                if name in seen:
                    add("SM109", f"{noun} '{name}' is listed twice", item.span, sid,
                        EXPRESSED)  # uniqueItems
                else:
                    seen[name] = item
        inputs = step.get("inputs")
        if not isinstance(inputs, YMap):
            continue
        for pair in inputs.pairs:
            if pair.name in RESERVED_INPUTS:
                add(
                    "SM108",
                    f"'{pair.name}' is reserved for the step's "
                    + ("granted credentials" if pair.name == "connections" else "effect recorder")
                    + "; name this input differently",
                    pair.key.span,
                    sid,
                    EXPRESSED,  # propertyNames
                )
            val = pair.value
            if isinstance(val, YScalar) and isinstance(val.data, str):
                _check_input_ref(pair, val, sid, sources, ids, edges, add, suggest)
            # forbidden field names: the parameter name itself and any key in a literal
            if is_forbidden_field(pair.name):
                add(
                    "SM301",
                    f"input '{pair.name}' has a forbidden name: inputs are stored verbatim, so "
                    "credentials must arrive through `connections`",
                    pair.key.span,
                    sid,
                    EXPRESSED,  # propertyNames
                )
            if isinstance(val, (YMap, YSeq)):
                for path in find_forbidden_fields(val.data):
                    keynode = _key_node_at(val, path)
                    add(
                        "SM301",
                        f"input '{pair.name}' carries a field named '{path[-1]}': inputs are "
                        "stored verbatim, so credentials must arrive through `connections`",
                        keynode.span if keynode is not None else val.span,
                        sid,
                        EXPRESSED,  # InputLiteral's propertyNames, at any depth
                    )

    _check_cycles(steps, edges, add)


def _check_input_ref(pair: YPair, val: YScalar, sid: str | None, sources: dict, ids: dict,
                     edges: dict, add, suggest: Suggester) -> None:
    """SM102 / SM104 for one string input; a good step reference becomes a wiring edge."""
    text = val.data
    ref = parse_input_ref(text)
    if isinstance(ref, MalformedRef):
        add("SM102" if ref.kind == "source" else "SM104", ref.message, val.span, sid,
            EXPRESSED)  # InputValue's patterns
    elif isinstance(ref, SourceRef) and ref.name not in sources:
        span = sub_span(val, ref.name_start, len(text))
        add("SM102", f"input '{pair.name}' reads source '{ref.name}', which is not declared "
            "under `sources`" + suggest.sentence(ref.name, sources), span, sid,
            suggest.fix(ref.name, sources, span) if span != val.span else None)
    elif isinstance(ref, StepOutputRef):
        if ref.step not in ids:
            span = sub_span(val, ref.step_start, ref.step_start + len(ref.step))
            add("SM104", f"input '{pair.name}' uses the output of step '{ref.step}', but there "
                "is no such step" + suggest.sentence(ref.step, ids), span, sid,
                suggest.fix(ref.step, ids, span) if span != val.span else None)
        elif sid is not None:
            edges.setdefault(sid, []).append((ref.step, val))


def _key_node_at(node: YNode, path: tuple) -> YScalar | None:
    for i, part in enumerate(path):
        if isinstance(node, YMap) and isinstance(part, str):
            pair = node.pair(part)
            if pair is None:
                return None
            if i == len(path) - 1:
                return pair.key
            node = pair.value
        elif isinstance(node, YSeq) and isinstance(part, int) and part < len(node.items):
            node = node.items[part]
        else:
            return None
    return None


def _check_cycles(steps: YSeq, edges: dict[str, list[tuple[str, YNode]]], add) -> None:
    order = [sid for sid in (_step_id(s) for s in steps.items) if sid is not None]
    # Tarjan's SCC, iterative
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    sccs: list[list[str]] = []
    counter = 0
    for start in order:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            succ = edges.get(v, [])
            recurse = False
            while i < len(succ):
                w = succ[i][0]
                i += 1
                if w not in index:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                sccs.append(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])

    position = {sid: i for i, sid in enumerate(order)}
    for comp in sccs:
        members = set(comp)
        first = min(comp, key=lambda s: position.get(s, 0))
        self_loop = [val for (w, val) in edges.get(first, []) if w == first]
        if len(comp) == 1 and not self_loop:
            continue
        if self_loop:
            add(
                "SM105",
                f"wiring cycle: step '{first}' uses its own output",
                self_loop[0].span,
                first,
            )
            continue
        # shortest path back to `first` inside the component (BFS), reported at first's input
        prev: dict[str, str | None] = {}
        frontier = []
        for w, _val in edges.get(first, []):
            if w in members and w not in prev:
                prev[w] = None
                frontier.append(w)
        target_found = None
        while frontier and target_found is None:
            nxt = []
            for v in frontier:
                for w, _ in edges.get(v, []):
                    if w == first:
                        target_found = v
                        break
                    if w in members and w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if target_found:
                    break
            frontier = nxt
        path = []
        v = target_found
        while v is not None:
            path.append(v)
            v = prev.get(v)
        path.reverse()  # first -> path[0] -> ... -> path[-1] -> first
        cycle = [first] + path + [first]
        head = path[0] if path else first
        val = next((val for (w, val) in edges.get(first, []) if w == head), None)
        add(
            "SM105",
            "wiring cycle: " + " -> ".join(cycle),
            val.span if val is not None else steps.span,
            first,
        )
