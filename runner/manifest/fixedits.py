"""The edits of the manifest's quick fixes, computed by the check that finds the problem (the
shape is `runner.fixes`: `Problem.data` carries `{"fix", "title", "edits"}`, editors apply
them and never re-parse the YAML). Edits are made on the positioned tree and the text's
lines, block style and flow style alike; when a shape is not one of those handled (a key
sharing its line with `- `, a multi-line flow map) there is no fix rather than a wrong one.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from stepsmith.runner.fixes import fix_data, with_alternatives
from stepsmith.runner.lines import split_lines
from stepsmith.runner.model.refs import StepOutputRef, parse_input_ref
from stepsmith.runner.problems import Span

from .yamlpos import YMap, YNode, YPair, YScalar, YSeq


def replace(span: Span, name: str, node: YNode | None = None) -> dict:
    """Replace `span` with `name`; when `span` is the whole of a quoted scalar `node` the
    quotes stay (`"xeor"` -> `"xero"`)."""
    quote = ""
    if isinstance(node, YScalar) and node.style in ("'", '"') and node.span == span:
        quote = node.style
    data = fix_data("replace", f"Change to '{name}'", [(span, quote + name + quote)])
    data["replacement"] = name
    return data


@functools.lru_cache(maxsize=8)
def lines_of(text: str) -> tuple[str, ...]:
    """The manifest's editor lines (\r\n, \r, \n only), split once per text: every step's
    signature check asks (200 steps re-split a 200-step manifest 200 times per keystroke)."""

    return tuple(split_lines(text))


def _eol(lines: Sequence[str], line: int) -> str:
    raw = lines[line - 1] if 0 < line <= len(lines) else ""
    return "\r\n" if raw.endswith("\r\n") else "\n"


def _text(lines: Sequence[str], line: int) -> str:
    return lines[line - 1].rstrip("\r\n") if 0 < line <= len(lines) else ""


def _delete_lines(lines: Sequence[str], pair: YPair) -> Span | None:
    """The whole lines of block pair `pair` (its key alone at the start of its line)."""
    k, v = pair.key.span, pair.value.span
    if _text(lines, k.line)[:k.column].strip():
        return None  # `- inputs: ...`: the line holds more than this pair
    end = max(v.end_line, k.end_line)
    if end < len(lines):
        return Span(k.line, 0, end + 1, 0)
    prev = _text(lines, k.line - 1)
    if k.line == 1:
        return Span(1, 0, end, len(_text(lines, end)))
    return Span(k.line - 1, len(prev), end, len(_text(lines, end)))


def _delete_flow_pair(container: YMap, pair: YPair) -> Span | None:
    """`{a: 1, b: 2}` without `pair`: up to the next key, or from the previous value."""
    i = container.pairs.index(pair)
    k, v = pair.key.span, pair.value.span
    if i + 1 < len(container.pairs):
        nxt = container.pairs[i + 1].key.span
        return Span(k.line, k.column, nxt.line, nxt.column)
    if i == 0:
        return None
    prev = container.pairs[i - 1].value.span
    return Span(prev.end_line, prev.end_column, v.end_line, v.end_column)


def remove_pair(lines: Sequence[str], container: YMap, pair: YPair) -> Span | None:
    if container.flow:
        return _delete_flow_pair(container, pair)
    return _delete_lines(lines, pair)


def remove_input(lines: Sequence[str], step: YMap, pair: YPair, rename_to: str | None) -> dict | None:
    """SM204: delete input `pair` (the whole `inputs` when it is the only one); with a close
    parameter name, renaming the key comes first."""
    inputs_pair = step.pair("inputs")
    inputs = inputs_pair.value if inputs_pair is not None else None
    if not isinstance(inputs, YMap) or pair not in inputs.pairs:
        return None
    if len(inputs.pairs) == 1:
        span = remove_pair(lines, step, inputs_pair)
    else:
        span = remove_pair(lines, inputs, pair)
    fixes = []
    if rename_to is not None:
        fixes.append(replace(pair.key.span, rename_to, pair.key))
    if span is not None:
        fixes.append(fix_data("remove-input", f"Remove the unused input '{pair.name}'", [(span, "")]))
    return with_alternatives(fixes)


def remove_grant(lines: Sequence[str], step: YMap, item: YNode) -> dict | None:
    """SM209: drop connection `item` from the step's `connections` (the whole key when it is
    the only one): flow `[a, b]` and block `- a` lists alike."""
    lpair = step.pair("connections")
    lst = lpair.value if lpair is not None else None
    if not isinstance(lst, YSeq) or item not in lst.items:
        return None
    name = item.data
    if len(lst.items) == 1:
        span = remove_pair(lines, step, lpair)
    elif lst.flow:
        i = lst.items.index(item)
        s = item.span
        if i + 1 < len(lst.items):
            nxt = lst.items[i + 1].span
            span = Span(s.line, s.column, nxt.line, nxt.column)
        else:
            prev = lst.items[i - 1].span
            span = Span(prev.end_line, prev.end_column, s.end_line, s.end_column)
    else:
        s = item.span
        head, tail = _text(lines, s.line)[:s.column], _text(lines, s.end_line)[s.end_column:]
        if head.strip() != "-" or (tail.strip() and not tail.strip().startswith("#")) \
                or s.end_line >= len(lines):
            return None
        span = Span(s.line, 0, s.end_line + 1, 0)
    if span is None:
        return None
    return fix_data("remove-grant", f"Remove the grant of '{name}' (the step cannot use it)",
                    [(span, "")])


def _value_for(name: str, sources, step_ids) -> str:
    """What a new input reads: the source or the step of the same name when there is one,
    else `null` for the author to fill in (a literal: valid, and visibly unset)."""
    if name in sources:
        return f"sources.{name}"
    if name in step_ids:
        return f"steps.{name}.output"
    return "null"


def add_inputs(lines: Sequence[str], step: YMap, names: Sequence[str], sources,
               step_ids=()) -> dict | None:
    """SM205: add every parameter without an input under `inputs` (created when absent)."""
    if not names:
        return None
    entries = [(n, _value_for(n, sources, step_ids)) for n in names]
    title = "Add the missing input" + ("s " if len(names) > 1 else " ") + ", ".join(
        f"'{n}'" for n in names)  # as actions/languageservices does for `with:`
    inputs_pair = step.pair("inputs")
    inputs = inputs_pair.value if inputs_pair is not None else None
    flow_items = ", ".join(f"{n}: {v}" for n, v in entries)
    if isinstance(inputs, YMap) and inputs.flow:
        sp = inputs.span
        if sp.line != sp.end_line:
            return None
        at = Span(sp.end_line, sp.end_column - 1, sp.end_line, sp.end_column - 1)
        return fix_data("add-inputs", title, [(at, (", " if inputs.pairs else "") + flow_items)])
    if isinstance(inputs, YMap) and inputs.pairs:
        first, last = inputs.pairs[0], inputs.pairs[-1]
        col, end = first.key.span.column, max(last.value.span.end_line, last.key.span.end_line)
        return _insert_lines(lines, end, [" " * col + f"{n}: {v}" for n, v in entries], title)
    if inputs_pair is not None:
        return None  # `inputs:` empty or not a mapping: the schema reports it
    if step.flow:
        sp = step.span
        if sp.line != sp.end_line:
            return None
        at = Span(sp.end_line, sp.end_column - 1, sp.end_line, sp.end_column - 1)
        return fix_data("add-inputs", title, [(at, ", inputs: {" + flow_items + "}")])
    anchor = step.pair("code") or step.pairs[-1]
    col = anchor.key.span.column
    end = max(anchor.value.span.end_line, anchor.key.span.end_line)
    body = [" " * col + "inputs:"] + [" " * (col + 2) + f"{n}: {v}" for n, v in entries]
    return _insert_lines(lines, end, body, title)


def _insert_lines(lines: Sequence[str], after: int, new: list[str], title: str) -> dict:
    eol = _eol(lines, after)
    raw = lines[after - 1] if 0 < after <= len(lines) else ""
    if raw.endswith(("\n", "\r")):
        edit = (Span(after + 1, 0, after + 1, 0), "".join(t + eol for t in new))
    else:  # the last line has no newline
        n = len(raw)
        edit = (Span(after, n, after, n), "".join(eol + t for t in new))
    return fix_data("add-inputs", title, [edit])


def sources_and_steps(root: YMap, own_id: str | None) -> tuple[set[str], set[str]]:
    """Declared sources, and the step ids an input may read without making a cycle (none
    that already reads `own_id`'s output, directly or not) for `_value_for`."""
    src = root.get("sources")
    sources = set(src.index) if isinstance(src, YMap) else set()
    steps = root.get("steps")
    reads: dict[str, set[str]] = {}
    for item in getattr(steps, "items", ()):
        if not isinstance(item, YMap):
            continue
        idn, inputs = item.get("id"), item.get("inputs")
        if not isinstance(idn, YScalar) or not isinstance(idn.data, str):
            continue
        deps = reads.setdefault(idn.data, set())
        for p in getattr(inputs, "pairs", ()):
            ref = parse_input_ref(p.value.data) if isinstance(p.value, YScalar) else None
            if isinstance(ref, StepOutputRef):
                deps.add(ref.step)
    # everything downstream of own_id would close a cycle
    downstream, changed = {own_id}, True
    while changed:
        changed = False
        for sid, deps in reads.items():
            if sid not in downstream and deps & downstream:
                downstream.add(sid)
                changed = True
    return sources, {s for s in reads if s not in downstream}
