"""`parse_manifest`: YAML + schema + in-file cross references, every problem positioned."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from stepsmith.runner.problems import Problem, Span
from stepsmith.runner.rules.manifest_rules import rationale

from .crossref import check_crossrefs, value_span
from .fixedits import replace
from .model_paths import model_at
from .pattern_messages import pattern_message
from .yamlpos import YMap, YNode, YScalar, YSeq, load, node_at

if TYPE_CHECKING:
    from .model import Workflow

# The model (pydantic) is imported where a text is validated, not with this module: `check`
# re-reads an unchanged manifest's positions without it (`known`, runner/cli/check_command.py).


@dataclass
class ManifestDoc:
    text: str
    path: str | None
    root: YNode | None
    workflow: Workflow | None
    problems: list[Problem] = field(default_factory=list)

    @property
    def data(self) -> Any:
        return self.root.data if self.root is not None else None

    def locate(
        self, key_path: tuple, part: Literal["value", "key"] = "value"
    ) -> Span | None:
        """Span of the key or value at `key_path` (str keys, int list indices), or None."""
        if not key_path:
            return self.root.span if (self.root is not None and part == "value") else None
        parent = node_at(self.root, key_path[:-1])
        last = key_path[-1]
        if isinstance(parent, YMap) and isinstance(last, str):
            pair = parent.pair(last)
            if pair is None:
                return None
            return pair.key.span if part == "key" else pair.value.span
        if isinstance(parent, YSeq) and isinstance(last, int) and part == "value":
            if -len(parent.items) <= last < len(parent.items):
                return parent.items[last].span
        return None

    def node(self, key_path: tuple) -> YNode | None:
        return node_at(self.root, key_path)

    def path_at(self, line: int, column: int) -> tuple[tuple, str] | None:
        """The deepest key path whose key or value contains (line 1-based, column 0-based),
        and which part ("key" or "value") it is in. For hover, definition and completion."""
        pos = (line, column)

        def inside(sp: Span) -> bool:
            return (sp.line, sp.column) <= pos <= (sp.end_line, sp.end_column)

        node, path, found = self.root, (), None
        while node is not None:
            nxt = None
            if isinstance(node, YMap):
                for pair in node.pairs:
                    if inside(pair.key.span):
                        return path + (pair.name,), "key"
                    if inside(pair.value.span):
                        nxt, path = pair.value, path + (pair.name,)
                        break
            elif isinstance(node, YSeq):
                for i, item in enumerate(node.items):
                    if inside(item.span):
                        nxt, path = item, path + (i,)
                        break
            if nxt is None:
                break
            node = nxt
            found = (path, "value")
        return found

    def step_index(self, step_id: str) -> int | None:
        steps = node_at(self.root, ("steps",))
        if isinstance(steps, YSeq):
            for i, item in enumerate(steps.items):
                if isinstance(item, YMap):
                    idn = item.get("id")
                    if isinstance(idn, YScalar) and idn.data == step_id:
                        return i
        return None



# SM004's fix hint: what a missing key looks like when written
_KEY_EXAMPLES = {
    "workflow": "<slug>", "version": "1", "python": '"3.11"', "trigger": "{manual: {}}",
    "steps": "[...]", "id": "<step-id>", "code": "steps/<file>.py:<function>",
    "explanation": "<what this step does, in plain language>", "cron": '"0 7 * * 1-5"',
    "connection": "<alias from connections>", "kind": "create", "key": "<payload field>",
    "channel": "<channel name>", "query": "<graph query name>",
}

def _describe(value: Any) -> str:
    if value is None:
        return "nothing (empty value)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        short = value if len(value) <= 40 else value[:37] + "..."
        return f"the text {short!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


_EXPECTED = {
    "string_type": "text",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
}


def _context(loc: tuple, root: YNode | None) -> str:
    """' in step 'match'' style suffix for messages."""
    if len(loc) >= 2 and loc[0] == "steps" and isinstance(loc[1], int):
        step = node_at(root, ("steps", loc[1]))
        sid = None
        if isinstance(step, YMap):
            idn = step.get("id")
            if isinstance(idn, YScalar) and isinstance(idn.data, str):
                sid = idn.data
        return f" (step '{sid}')" if sid else f" (step {loc[1] + 1})"
    return ""


def _step_of(loc: tuple, root: YNode | None) -> str | None:
    if len(loc) >= 2 and loc[0] == "steps" and isinstance(loc[1], int):
        step = node_at(root, ("steps", loc[1]))
        if isinstance(step, YMap):
            idn = step.get("id")
            if isinstance(idn, YScalar) and isinstance(idn.data, str):
                return idn.data
    return None


def _map_error(err: dict, root: YNode | None, add) -> None:
    etype = err["type"]
    loc = tuple(err["loc"])
    value = err.get("input")
    step = _step_of(loc, root)
    ctx = _context(loc, root)
    if etype == "source_kind_missing":  # Source's model validator: the kind's own field
        etype, loc = "missing", loc + (err["ctx"]["need"],)
        ctx += f" ({err['msg']})"
    elif etype == "effect_target_missing":  # Effect's: a connection or a channel
        etype, loc = "missing", loc + ("connection",)
        ctx += f" ({err['msg']})"
    elif etype == "effect_target_both":  # shown at the second target
        holder = node_at(root, loc)
        if isinstance(holder, YMap) and holder.pair("channel") is not None:
            add("SM005", f"{err['msg']}{ctx}", holder.pair("channel").key.span, step)
            return

    if etype == "missing":
        key = loc[-1]
        parent_loc = loc[:-1]
        parent = node_at(root, parent_loc)
        span = None
        if parent_loc:
            holder = node_at(root, parent_loc[:-1])
            last = parent_loc[-1]
            if isinstance(holder, YMap) and isinstance(last, str):
                span = holder.pair(last).key.span if holder.pair(last) else None
            elif isinstance(parent, YMap):
                idp = parent.pair("id")
                if idp is not None:
                    span = value_span(idp)
                elif parent.pairs:
                    span = parent.pairs[0].key.span
        elif isinstance(parent, YMap) and parent.pairs:
            # top level: the key after which the missing one belongs (model order), so the
            # squiggle sits where the author will type it
            from .model import Workflow

            order = list(Workflow.model_fields)
            before = order[: order.index(key)] if key in order else []
            present = [parent.pair(k) for k in reversed(before) if parent.pair(k) is not None]
            span = (present[0] if present else parent.pairs[0]).key.span
        if span is None:
            span = parent.span if parent is not None else Span(1, 0, 1, 1)
        where = ""
        if parent_loc and isinstance(parent_loc[-1], str):
            where = f" in '{parent_loc[-1]}'"
        add("SM004", f"missing required key '{key}'{where}{ctx}; add "
            f"`{key}: {_KEY_EXAMPLES.get(key, '...')}`", span, step)
        return

    if etype == "extra_forbidden":
        key = loc[-1]
        parent = node_at(root, loc[:-1])
        span = None
        if isinstance(parent, YMap) and isinstance(key, str) and parent.pair(key) is not None:
            span = parent.pair(key).key.span
        if span is None:
            span = parent.span if parent is not None else Span(1, 0, 1, 1)
        model = model_at(loc[:-1])
        allowed = list(model.model_fields) if model else []
        hint = ""
        fix = None
        if allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
            hint = f"; did you mean '{close[0]}'?" if close else f" (expected one of: {', '.join(allowed)})"
        pair = parent.pair(key) if isinstance(parent, YMap) and isinstance(key, str) else None
        if allowed and close and pair is not None and close[0] not in parent.index:
            fix = replace(span, close[0], pair.key)
        if (isinstance(parent, YMap) and parent.flow and pair is not None
                and pair.value.data is None and " " in str(key)):
            hint += ("; a comma inside { } starts a new key: if this is the end of the text "
                     "before it, put that text in quotes")
        add("SM003", f"unknown key '{key}'{ctx}{hint}", span, step, fix)
        return

    # value errors: locate the value (or key for '[key]' errors)
    if loc and loc[-1] == "[key]":
        holder = node_at(root, loc[:-2])
        pair = holder.pair(str(loc[-2])) if isinstance(holder, YMap) else None
        span = pair.key.span if pair is not None else (holder.span if holder else Span(1, 0, 1, 1))
    else:
        holder = node_at(root, loc[:-1]) if loc else None
        if isinstance(holder, YMap) and loc and isinstance(loc[-1], str) and holder.pair(loc[-1]):
            span = value_span(holder.pair(loc[-1]))
        else:
            node = node_at(root, loc)
            if node is None:  # walk as far as possible
                for n in range(len(loc) - 1, -1, -1):
                    node = node_at(root, loc[:n])
                    if node is not None:
                        break
            span = node.span if node is not None else Span(1, 0, 1, 1)

    field_name = next((p for p in reversed(loc) if isinstance(p, str) and p != "[key]"), "value")
    label = f"'{field_name}'"
    if loc and isinstance(loc[-1], int):
        label = f"step {loc[-1] + 1}" if loc[:-1] == ("steps",) else f"item {loc[-1] + 1} of '{field_name}'"
        if loc[:-1] == ("steps",):
            ctx = ""
    code = "SM005"
    suggestion = None  # a did-you-mean for the value, made an edit below
    if len(loc) == 3 and loc[0] == "steps" and loc[2] == "explanation" and etype in (
        "string_too_short",
        "string_pattern_mismatch",
    ):
        add("SM107", f"explanation is empty{ctx}: say in plain language what this step does", span, step)
        return
    if etype == "trigger_count":
        return  # reported with its exact position by check_crossrefs (SM005)
    if field_name == "python" and etype == "string_type" and isinstance(value, (int, float)):
        msg = (f'python must be a quoted version string like "3.11"; unquoted it reads as the '
               f"number {value!r}")
    elif etype in _EXPECTED:
        msg = f"{label} must be {_EXPECTED[etype]}, got {_describe(value)}{ctx}"
    elif etype == "literal_error":
        expected = (err.get("ctx") or {}).get("expected", "")
        hint = ""
        if isinstance(value, str):
            options = [o.strip().strip("'") for o in expected.replace(" or ", ", ").split(",")]
            close = difflib.get_close_matches(value, options, n=1, cutoff=0.6)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            suggestion = close[0] if close else None
        msg = f"{label} must be {expected}, got {_describe(value)}{ctx}{hint}"
    elif etype == "string_pattern_mismatch":
        msg = pattern_message(loc, value) + ctx
    elif etype == "greater_than_equal":
        msg = f"'{field_name}' must be at least {err['ctx']['ge']}, got {value!r}"
    elif etype == "too_short" and field_name == "steps":
        msg = "a workflow needs at least one step"
    elif etype == "value_error":
        msg = str(err["msg"]).removeprefix("Value error, ") + ctx
        suggestion = getattr((err.get("ctx") or {}).get("error"), "suggestion", None)
    else:
        msg = f"'{field_name}': {err['msg']}{ctx}"
    fix = None
    node = node_at(root, loc) if suggestion else None
    if isinstance(suggestion, str) and isinstance(node, YScalar) and node.span == span:
        fix = replace(span, suggestion, node)
    add(code, msg, span, step, fix)


def parse_manifest(text: str, path: str | None = None, *,
                   known: list[Problem] | None = None) -> ManifestDoc:
    """Parse and check one manifest's text. Never raises; problems sorted by position.
    `known`: the problems this very text was found to have before (`check`'s cache, keyed by
    the text's bytes): the positions are read again, the model is not validated (no pydantic
    import) and `workflow` is None."""
    problems: list[Problem] = []

    def add(code: str, message: str, span: Span, step: str | None = None, data: dict | None = None):
        problems.append(
            Problem(code=code, message=message, span=span, path=path, step=step,
                    rationale=rationale(code), data=dict(data) if data else {})
        )

    try:
        loaded = load(text, path)
    except Exception as exc:  # pragma: no cover - load() is meant never to raise
        add("SM001", f"could not read the manifest: {type(exc).__name__}: {exc}", Span(1, 0, 1, 1))
        return ManifestDoc(text, path, None, None, known if known is not None else problems)
    problems.extend(loaded.problems)
    root = loaded.root
    if isinstance(root, YScalar) and root.style == "" and root.text == "":
        root = None  # "---" alone: an empty document
    if known is not None:
        return ManifestDoc(text, path, root, None, list(known))
    if root is None:
        if not loaded.problems:
            add("SM006", "manifest is empty: expected a mapping with workflow, version, python, "
                "trigger and steps", Span(1, 0, 1, 1))
        return ManifestDoc(text, path, None, None, problems)
    if not isinstance(root, YMap):
        kind = "a list" if isinstance(root, YSeq) else (
            "empty" if root.data is None else f"a single value ({_describe(root.data)})")
        add("SM006", f"manifest must be a mapping with workflow, version, python, trigger and "
            f"steps; this one is {kind}", root.span if root.span.end_line == root.span.line
            else Span(root.span.line, root.span.column, root.span.line, root.span.column + 1))
        return ManifestDoc(text, path, root, None, problems)

    def add_from_model(code: str, message: str, span: Span, step: str | None = None,
                       data: dict | None = None):
        # the JSON Schema says the same as the model (tests/reference/test_schema_model_
        # agreement.py): any schema tool reports this problem too (an editor may leave it to one)
        add(code, message, span, step, {**(data or {}), "schema": True})

    from pydantic import ValidationError

    from .model import Workflow

    workflow = None
    try:
        workflow = Workflow.model_validate(root.data)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            try:
                _map_error(err, root, add_from_model)
            except Exception as inner:  # never lose an error to a mapping bug
                add("SM005", f"{'.'.join(map(str, err['loc']))}: {err['msg']} "
                    f"({type(inner).__name__} while locating it)", root.span)
    except Exception as exc:  # pragma: no cover - never crash the editor or CI
        add("SM005", f"could not validate the manifest: {type(exc).__name__}: {exc}", Span(1, 0, 1, 1))
    try:
        check_crossrefs(root, add)
    except Exception as exc:  # pragma: no cover - defensive: report, never crash
        add("SM005", f"internal error while cross-checking: {type(exc).__name__}: {exc}", Span(1, 0, 1, 1))
    if any(p.code in ("SM002",) for p in problems):
        workflow = None  # ambiguous: YAML would have kept a different value
    problems.sort(key=lambda p: (p.span.line, p.span.column, p.code))
    return ManifestDoc(text, path, root, workflow, problems)
