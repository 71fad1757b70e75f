"""SS6xx, effects: `effects.emit("name", payload)` checked against what the manifest declares.

At run time the harness refuses an undeclared name or a payload without the effect's key
field (harness/inside.py `Effects.emit`); these rules say so at check time, for what the code
spells out: a string-literal name (SS601) and a dict-literal payload (SS602). A computed name or
payload is left to the run.

Local to one top-level statement like every rule: what a function may emit comes from
`ctx.effects` (the file's uses, a per-file input), never from another statement. A function
some step runs may emit what every step running it declares; a helper no step runs directly
(called from step functions) may emit what any step using this file declares, since which step
calls it is not local knowledge. Silent when the uses do not say what they declare (None).
"""

from __future__ import annotations

import _ast as ast  # node classes only: `ast` itself imports enum, contextlib, ...

_RECEIVER = "effects"  # the step's parameter that receives the recorder (manifest SM208)


def _takes_effects(root) -> bool:
    if root.__class__ is not ast.FunctionDef:
        return False
    a = root.args
    return any(p.arg == _RECEIVER for p in (*a.posonlyargs, *a.args, *a.kwonlyargs))


def _argument(node: ast.Call, index: int, keyword: str):
    if len(node.args) > index:
        arg = node.args[index]
        return None if arg.__class__ is ast.Starred else arg
    if any(a.__class__ is ast.Starred for a in node.args):
        return None  # `emit(*args)`: positions unknown
    for kw in node.keywords:
        if kw.arg == keyword:
            return kw.value
    return None


def _declarations(ctx, function: str) -> tuple[str, list[tuple[str, dict]]]:
    """('step', [(step id, {effect: key})...]) for a function steps run, else ('helper', [all])."""
    every = [(step_id, dict(effects)) for _f, step_id, effects in ctx.effects]
    own = [(step_id, dict(effects)) for f, step_id, effects in ctx.effects if f == function]
    return ("step", own) if own else ("helper", every)


def check_emit(ctx, node: ast.Call) -> None:
    func = node.func
    if ctx.effects is None or func.__class__ is not ast.Attribute or func.attr != "emit":
        return
    base = func.value
    if base.__class__ is not ast.Name or base.id != _RECEIVER or not _takes_effects(ctx.root):
        return
    name_node = _argument(node, 0, "name")
    if name_node is None or name_node.__class__ is not ast.Constant \
            or name_node.value.__class__ is not str:
        return
    name = name_node.value
    kind, decls = _declarations(ctx, ctx.root.name)
    if kind == "step":
        lacking = [step_id for step_id, effects in decls if name not in effects]
    else:
        lacking = [] if any(name in effects for _s, effects in decls) else [s for s, _e in decls]
    if lacking:
        _report_undeclared(ctx, name_node, name, kind, lacking, decls)
        return
    payload = _argument(node, 1, "payload")
    if payload is not None:
        keys = {effects[name] for _s, effects in decls if name in effects} - {None}
        _check_payload(ctx, payload, name, sorted(keys))


def _report_undeclared(ctx, literal, name: str, kind: str, lacking, decls) -> None:
    steps = ", ".join(f"`{s}`" for s in lacking)
    if kind == "step":
        where = f"step {steps} does not" if len(lacking) == 1 else f"steps {steps} do not"
    else:
        where = f"no step using this file ({steps})"
        where += " does" if len(lacking) == 1 else " do"
    known = sorted({e for _s, effects in decls for e in effects})
    data = {"effect": name, "steps": list(lacking)}
    close = _close(name, known)
    if close is not None:
        span = ctx.pos.node_span(literal)
        quote = _quote(ctx, span)
        if quote is not None:
            data.update(fix="replace", replacement=close, title=f"Change to '{close}'",
                        edits=[[span.line, span.column, span.end_line, span.end_column,
                                quote + close + quote]])
    hint = f"; did you mean '{close}'?" if close is not None else ""
    ctx.report("SS601", ctx.pos.node_span(literal),
               f"effect '{name}' is not declared: {where} declare it under the step's "
               f"`effects`{hint}", data)


def _check_payload(ctx, payload, name: str, keys: list[str]) -> None:
    cls = payload.__class__
    if cls in (ast.List, ast.Tuple, ast.Set, ast.ListComp, ast.SetComp, ast.JoinedStr) or (
            cls is ast.Constant and payload.value.__class__ is not dict):
        ctx.report("SS602", ctx.pos.first_line_span(payload),
                   f"the payload of effect '{name}' must be a dict", {"effect": name})
        return
    if cls is not ast.Dict:
        return  # a name or call: its keys are known only at run time
    if any(k is None for k in payload.keys):
        return  # `{**base, ...}`: the spread may carry the key field
    spelled = {k.value for k in payload.keys if k.__class__ is ast.Constant}
    if len(spelled) < len(payload.keys):
        return  # a computed key may be the key field
    for key in keys:
        if key not in spelled:
            ctx.report("SS602", ctx.pos.first_line_span(payload),
                       f"the payload of effect '{name}' has no key field '{key}' (the "
                       "effect's `key` in the manifest identifies its target)",
                       {"effect": name, "key": key})


def _close(name: str, known: list[str]) -> str | None:
    if not known:
        return None
    import difflib  # on the reporting path only (never inside the sandbox: no effects there)

    found = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return found[0] if found else None


def _quote(ctx, span) -> str | None:
    """The literal's quote character, when it is a plain one-line '...' or "..." string."""
    if span.line != span.end_line:
        return None
    text = ctx.pos.line(span.line - ctx.pos.line_offset)[span.column:span.end_column]
    if len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0] and text[:3] != text[0] * 3:
        return text[0]
    return None


HANDLERS = {
    ast.Call: check_emit,
}
