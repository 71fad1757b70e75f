"""Signature-help data: the allowed modules' callables and a step's own functions.

`signature_of("re.sub")` reads `inspect.signature`; builtins whose signature inspect cannot
read (`math.log`, `datetime.datetime`) fall back to the `name(...)` line their docstring opens
with. `step_signature(source, "match")` reads the `def` (never runs it) and explains the two
parameters the runner supplies itself, `connections` and `effects`. Each parameter carries its
[start, end) offsets in the label, so an LSP client highlights the right one even when the
same text occurs twice.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from stepsmith.runner.language import modules_api
from stepsmith.runner.pyparse import parse_module

__all__ = ["CONNECTIONS_DOC", "EFFECTS_DOC", "Parameter", "Signature", "signature_of",
           "step_signature"]

CONNECTIONS_DOC = ("the credentials of the connections this step is granted, by alias "
                   "(`connections[\"xero\"]`); supplied by the runner, never an input")
EFFECTS_DOC = ("the effect recorder: `effects.emit(\"name\", payload)` records an intent for "
               "one of the step's declared effects (nothing is performed locally); supplied "
               "by the runner, never an input")
_SUPPLIED = {"connections": CONNECTIONS_DOC, "effects": EFFECTS_DOC}
_MAX_SOURCE = 1024 * 1024  # the validator's cap: a larger file has no signature help


@dataclass(frozen=True)
class Parameter:
    label: str
    doc: str
    span: tuple[int, int]  # offsets of `label` in the signature's label


@dataclass(frozen=True)
class Signature:
    label: str
    parameters: tuple[Parameter, ...]
    doc: str


def _build(name: str, params: Sequence[tuple[str, str]], doc: str, tail: str = "") -> Signature:
    label, out = name + "(", []
    for i, (text, pdoc) in enumerate(params):
        if i:
            label += ", "
        out.append(Parameter(text, pdoc, (len(label), len(label) + len(text))))
        label += text
    return Signature(label + ")" + tail, tuple(out), doc)


def _doc(obj) -> str:
    try:
        return (inspect.getdoc(obj) or "").strip()
    except Exception:  # noqa: BLE001
        return ""


def _from_inspect(name: str, obj, doc: str) -> Signature | None:
    try:
        sig = inspect.signature(obj)
    except (ValueError, TypeError):
        return None
    params = list(sig.parameters.values())
    if params and params[0].name in ("self", "cls") and not inspect.isclass(obj):
        params = params[1:]  # a method: called on a value, which supplies it
    # `/` and `*` markers are left out: they are not arguments, and a client counts the
    # commas typed to pick the active parameter
    texts = [str(p.replace(annotation=p.empty)) for p in params]
    return _build(name, [(t, "") for t in texts], doc)


_DOC_LINE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\((.*)\)(\s*-+>\s*.*)?$")


def _from_docstring(name: str, doc: str) -> Signature | None:
    """`log(x, [base=math.e])` / `datetime(year, month, day[, hour[, ...]]])`: the label is the
    line itself, the parameters its names (optional brackets dropped)."""
    first = doc.splitlines()[0] if doc else ""
    m = _DOC_LINE.match(first)
    if m is None or m.group(1) != name:
        return None
    label = first.strip()
    params, cursor = [], label.index("(") + 1
    for raw in re.split(r",", m.group(2)):
        text = raw.strip(" []")
        if not text:
            continue
        start = label.find(text, cursor)
        if start < 0:
            continue
        params.append(Parameter(text, "", (start, start + len(text))))
        cursor = start + len(text)
    return Signature(label, tuple(params), doc)


def signature_of(dotted: str) -> Signature | None:
    """Signature help for a callable of the allowed modules (`re.sub`, `decimal.Decimal`,
    `decimal.Decimal.quantize`), or None when `dotted` is not one the dialect reaches."""
    obj = modules_api.resolve(dotted)
    if obj is None or not callable(obj) or inspect.ismodule(obj):
        return None
    name = dotted.rsplit(".", 1)[-1]
    doc = _doc(obj)
    return (_from_inspect(name, obj, doc) or _from_docstring(name, doc)
            or Signature(f"{name}(...)", (), doc))


def step_signature(source: str, function: str, *, inputs: Mapping[str, str] | None = None,
                   connections: Sequence[str] = (), effects: Sequence[str] = ()
                   ) -> Signature | None:
    """Signature help for step function `function` of `source` (parsed, never run): each
    parameter says where its value comes from (`inputs`: parameter -> manifest reference), and
    `connections` / `effects` what the runner hands in (naming the granted ones). None when the
    file does not parse or has no such top-level function."""
    if not isinstance(source, str) or len(source) > _MAX_SOURCE:
        return None
    try:
        tree = parse_module(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    node = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == function), None)
    if node is None:
        return None
    a = node.args
    params: list[tuple[str, str]] = []
    for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs):
        name = arg.arg
        if name in _SUPPLIED:
            granted = connections if name == "connections" else effects
            extra = f" (this step: {', '.join(granted)})" if granted else ""
            params.append((name, _SUPPLIED[name] + extra))
        elif inputs and name in inputs:
            params.append((name, f"input from `{inputs[name]}` (the step's `inputs`)"))
        else:
            params.append((name, "an input: wire it under the step's `inputs` in the manifest"))
    return _build(function, params, ast.get_docstring(node) or "")
