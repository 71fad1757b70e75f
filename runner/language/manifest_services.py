"""Language-service logic for manifests: symbols, hover, completion, definitions.

Pure functions over a parsed `ManifestDoc` (and, for `code:` completion/definition, a way to list
and read files). Positions are Problem-style: 1-based lines, 0-based code-point columns.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from stepsmith.runner.json_types import json_type
from stepsmith.runner.manifest import YMap, YScalar, YSeq
from stepsmith.runner.manifest.model_paths import field_at, literal_values
from stepsmith.runner.manifest.yamlpos.nodes import step_code_of, step_id_of, step_items
from stepsmith.runner.model.refs import (
    CodeRef,
    SourceRef,
    StepOutputRef,
    parse_input_ref,
)
from stepsmith.runner.problems import Span
from stepsmith.runner.reach import reach_rows

from . import markdown as md
from .cards import reach_card, rule_card

_LEAF_TYPES = (str, int, float, bool, type(None))


@dataclass
class Symbol:
    name: str
    kind: str  # "step" | "source" | "effect" | "connection" | "section" | "function" | "import" | "key"
    span: Span
    selection: Span
    detail: str = ""
    children: list[Symbol] = field(default_factory=list)


def describe_key(key_path: tuple) -> str | None:
    info, tp = field_at(key_path)
    if info is None:
        return None
    name = key_path[-1]
    text = f"**{md.code(name)}** — {info.description or ''}".rstrip(" —")
    values = literal_values(tp)
    if values:
        text += "\n\nOne of: " + md.names(values)
    if info.is_required():
        text += "\n\n*Required.*"
    return text


# ------------------------------------------------------------------ helpers over the tree


def declared(doc, section: str) -> list[str]:
    root = doc.root
    if not isinstance(root, YMap):
        return []
    sec = root.get(section)
    if not isinstance(sec, YMap):
        return []
    return [p.name for p in sec.pairs]


def step_entry_span(doc, step_id: str) -> Span | None:
    for i, item in step_items(doc):
        if step_id_of(item) == step_id:
            return item.span
    return None


def step_id_span(doc, step_id: str) -> Span | None:
    for i, item in step_items(doc):
        if step_id_of(item) == step_id:
            return item.get("id").span
    return None


def manifest_symbols(doc) -> list[Symbol]:
    root = doc.root
    out: list[Symbol] = []
    if not isinstance(root, YMap):
        return out
    kinds = {"connections": "connection", "sources": "source", "effects": "effect"}
    for pair in root.pairs:
        key_span = pair.key.span
        whole = Span(key_span.line, key_span.column, pair.value.span.end_line, pair.value.span.end_column)
        sec = Symbol(pair.name, "section", whole, key_span)
        if pair.name in kinds and isinstance(pair.value, YMap):
            for sub in pair.value.pairs:
                ks = sub.key.span
                sec.children.append(Symbol(sub.name, kinds[pair.name],
                                           Span(ks.line, ks.column, sub.value.span.end_line,
                                                sub.value.span.end_column), ks))
        elif pair.name == "steps" and isinstance(pair.value, YSeq):
            for i, item in enumerate(pair.value.items):
                if not isinstance(item, YMap):
                    continue
                sid = step_id_of(item) or f"step {i + 1}"
                idn = item.get("id")
                sel = idn.span if idn is not None else item.span
                sec.children.append(Symbol(sid, "step", item.span, sel, detail=step_code_of(item) or ""))
        elif pair.name == "workflow" and isinstance(pair.value, YScalar):
            sec.detail = str(pair.value.data)
        out.append(sec)
    return out


# ------------------------------------------------------------------ hover


def _reach_row(doc, step_id: str):
    if doc.workflow is None:
        return None

    for row in reach_rows(doc.workflow):
        if row.step_id == step_id:
            return row
    return None


def _scalar_text(node) -> str | None:
    return node.data if isinstance(node, YScalar) and isinstance(node.data, str) else None


def _code_ref(code: str | None, code_link: Callable[[str], str | None] | None) -> str:
    if not code:
        return "*(no `code:`)*"
    target = code_link(code) if code_link is not None else None
    return f"[{md.code(code)}]({target})" if target else md.code(code)


def input_hover(doc, key_path: tuple, *,
                code_link: Callable[[str], str | None] | None = None) -> str | None:
    """Markdown for a step input: `key_path` = ("steps", i, "inputs", param, ...) — the value
    (or anything inside a literal value) or the parameter name. Says where the value comes from:
    a source (its description and connection), another step's output (that step's id,
    explanation and code) or a literal passed verbatim (its JSON type); and the parameter it
    feeds. Works on the YAML tree, so also while other parts of the manifest have errors.
    `code_link(code)` may turn a `path.py:function` into a link target (the editor's glue).
    Every name, value, description and explanation is workflow data: escaped (issue 18)."""
    if (len(key_path) < 4 or key_path[0] != "steps" or not isinstance(key_path[1], int)
            or key_path[2] != "inputs" or not isinstance(key_path[3], str)):
        return None
    item = doc.node(key_path[:2])
    inputs = doc.node(key_path[:3])
    if not isinstance(item, YMap) or not isinstance(inputs, YMap):
        return None
    param = key_path[3]
    pair = inputs.pair(param)
    if pair is None:
        return None
    sid = step_id_of(item) or f"#{key_path[1] + 1}"
    code = step_code_of(item)
    ref = CodeRef.parse(code)
    function = ref.function if ref is not None else None
    p_, sid_ = md.code(param), md.code(sid)
    feeds = (f"- **feeds**: parameter {p_} of {_code_ref(code, code_link)}"
             if function else f"- **feeds**: parameter {p_} of step {sid_}'s function")
    value = pair.value
    text = _scalar_text(value)
    root = doc.root
    iref = parse_input_ref(text) if text is not None else None
    if isinstance(iref, SourceRef):
        name = iref.name
        sources = root.get("sources") if isinstance(root, YMap) else None
        src = sources.get(name) if isinstance(sources, YMap) else None
        head = f"**Input {p_}** of step {sid_} ← source **{md.code(name)}**"
        if not isinstance(src, YMap):
            return "\n".join([head, "", f"No source {md.code(name)} is declared under `sources`.", "",
                              feeds])
        desc = (_scalar_text(src.get("description")) or "").strip()
        conn = _scalar_text(src.get("connection"))
        lines = [head, "", md.plain(desc) if desc else "*(the source has no description)*", ""]
        kind = _scalar_text(src.get("kind")) or "connection"
        if kind in ("channel", "graph"):  # the kinds that read no connection
            field_name, label = ("channel", "channel") if kind == "channel" else ("query",
                                                                                  "graph query")
            lines.append(f"- **{label}**: {md.code(_scalar_text(src.get(field_name)) or '?')}")
        elif conn:
            conns = root.get("connections")
            cnode = conns.get(conn) if isinstance(conns, YMap) else None
            cdesc = (_scalar_text(cnode.get("description")) or "").strip() if isinstance(cnode, YMap) else ""
            lines.append(f"- **connection**: {md.code(conn)}" + (f" — {md.plain(cdesc)}" if cdesc else ""))
        else:
            lines.append("- **connection**: *(none given)*")
        lines.append(feeds)
        return "\n".join(lines)
    if isinstance(iref, StepOutputRef):
        ref = iref.step
        head = f"**Input {p_}** of step {sid_} ← the output of step **{md.code(ref)}**"
        target = None
        for _, other in step_items(doc):
            if step_id_of(other) == ref:
                target = other
                break
        if target is None:
            return "\n".join([head, "", f"No step has the id {md.code(ref)}.", "", feeds])
        explanation = (_scalar_text(target.get("explanation")) or "").strip()
        lines = [head, "",
                 f"> {md.plain(explanation)}" if explanation else "*(that step has no explanation)*",
                 "",
                 f"- **step**: {md.code(ref)}",
                 f"- **code**: {_code_ref(step_code_of(target), code_link)}",
                 feeds]
        return "\n".join(lines)
    data = value.data
    shown = repr(data) if not isinstance(data, (str, int, float, bool, list, dict, type(None))) else None
    if shown is None:
        try:
            shown = json.dumps(data, ensure_ascii=False)
        except (TypeError, ValueError):
            shown = repr(data)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    lines = [f"**Input {p_}** of step {sid_} — literal input passed verbatim", "",
             f"- **JSON type**: `{json_type(data)}`",
             f"- **value**: {md.code(shown)}",
             feeds]
    return "\n".join(lines)


def manifest_hover(doc, line: int, column: int, *,
                   code_link: Callable[[str], str | None] | None = None) -> tuple[str, Span] | None:
    """Markdown and the span it is about, for the position (1-based line, 0-based column).
    `code_link` (optional) maps a step's `path.py:function` to a link target for input hovers."""
    # a problem under the cursor: its rule
    for p in doc.problems:
        s = p.span
        if (s.line, s.column) <= (line, column) <= (s.end_line, s.end_column):
            card = rule_card(p.code, p.message)
            if card:
                return card, s
    found = doc.path_at(line, column)
    if found is None:
        return None
    path, part = found
    # on a step (its id, network or connections) -> the reach card
    if len(path) >= 2 and path[0] == "steps" and isinstance(path[1], int):
        item = doc.node(path[:2])
        sid = step_id_of(item) if isinstance(item, YMap) else None
        key = path[2] if len(path) >= 3 else None
        if sid and (key in ("id", "network", "connections", "effects") or key is None):
            row = _reach_row(doc, sid)
            if row is not None:
                span = doc.locate(path, part) or item.span
                text = reach_card(row)
                if key not in (None, "id") and part == "key":
                    desc = describe_key(tuple(path[:3]))
                    if desc:
                        text = desc + "\n\n---\n\n" + text
                return text, span
    # a step input (its value, anything inside a literal value, or its parameter name)
    if len(path) >= 4 and path[0] == "steps" and path[2] == "inputs":
        text = input_hover(doc, tuple(path), code_link=code_link)
        if text is not None:
            span = doc.locate(tuple(path[:4]), "key" if part == "key" and len(path) == 4 else "value")
            return text, span or Span(line, column, line, column + 1)
    # a key -> its schema description
    norm_path = tuple(path if part == "key" else path)
    desc = describe_key(norm_path)
    if desc is None and part == "value":
        # a value: describe the key it belongs to (walk up past list indices)
        p = tuple(path)
        while p and isinstance(p[-1], int):
            p = p[:-1]
        desc = describe_key(p) if p else None
    if desc is None:
        return None
    span = doc.locate(tuple(path), part) or Span(line, column, line, column + 1)
    return desc, span


# ------------------------------------------------------------------ completion
