"""Signature help in step files: inside `decimal.Decimal(|` or `match(rows, |`, the callable's
signature and the active parameter. Only what the dialect reaches: callables of the allowed
modules (through the file's imports: `import datetime as dt`, `from decimal import Decimal`)
and the file's own top-level functions (a step function's parameters say where their values
come from, from the manifests running it). Builtins (`round(`) and unknown names get none.

The file is usually mid-edit and does not parse: the call is found by tokenizing the current
top-level statement up to the cursor, the imports by parsing each other top-level statement
on its own, a function's signature from its own statement's text.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass

from stepsmith.runner.lines import chunk_starts, split_lines
from stepsmith.runner.manifest.yamlpos import YMap, YScalar, YSeq
from stepsmith.runner.pyparse import parse_module

from .signatures import Signature, signature_of, step_signature

_MAX_STATEMENT = 64 * 1024  # a longer statement gets no help (tokenizing it per keystroke)


@dataclass(frozen=True)
class SignatureHelp:
    signature: Signature
    active_parameter: int | None


@dataclass
class _Open:
    name: list[str]  # the dotted name before the `(` ([] when it is not a plain name)
    commas: int = 0
    keyword: str | None = None  # `name=` typed in the current argument


def _chunks(lines) -> list[tuple[int, int]]:
    starts = chunk_starts(lines)
    return list(zip(starts, [*starts[1:], len(lines)]))


def _open_call(text: str) -> _Open | None:
    """The innermost call left open at the end of `text` (one statement up to the cursor)."""
    stack: list[_Open | None] = []
    prev: list[tokenize.TokenInfo] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            s = tok.string
            if tok.type == tokenize.OP and s in "([{":
                stack.append(_Open(_dotted(prev)) if s == "(" else None)
            elif tok.type == tokenize.OP and s in ")]}":
                if stack:
                    stack.pop()
            elif tok.type == tokenize.OP and s == "," and stack and stack[-1] is not None:
                stack[-1].commas += 1
                stack[-1].keyword = None
            elif tok.type == tokenize.OP and s == "=" and stack and stack[-1] is not None \
                    and prev and prev[-1].type == tokenize.NAME:
                stack[-1].keyword = prev[-1].string
            if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
                                tokenize.INDENT, tokenize.DEDENT):
                prev.append(tok)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # the statement goes on past the cursor: what was read is what counts
    return stack[-1] if stack else None


def _dotted(prev: list[tokenize.TokenInfo]) -> list[str]:
    """`a.b.c` ending the tokens, as ["a", "b", "c"]; [] for `x[0](`, `f()(`, `"s".join(`."""
    parts: list[str] = []
    i = len(prev) - 1
    while i >= 0 and prev[i].type == tokenize.NAME:
        parts.append(prev[i].string)
        if i >= 1 and prev[i - 1].string == ".":
            i -= 2
            continue
        i -= 1
        break
    if i >= 0 and (prev[i].string in (".", ")", "]", "}", "def", "class")
                   or prev[i].type == tokenize.STRING):
        return []  # a method of a value, or a definition: not a call of a known callable
    return list(reversed(parts))


def _statements(lines, chunks, skip: int):
    """The text of every top-level statement but the cursor's, then each import line of the
    cursor's own (which does not parse as a whole while it is being typed)."""
    for i, (a, b) in enumerate(chunks):
        if i != skip:
            yield "".join(lines[a:b])
    a, b = chunks[skip]
    for raw in lines[a:b]:
        stripped = raw.strip()
        if stripped.startswith(("import ", "from ")):
            yield stripped


def _imports_and_defs(lines, chunks, skip: int) -> tuple[dict[str, str], dict[str, str]]:
    """{bound name: dotted module path} from the import statements, {function: its statement
    text} for the top-level defs, from every top-level statement that parses on its own."""
    imports, defs = {}, {}
    for text in _statements(lines, chunks, skip):
        if len(text) > _MAX_STATEMENT:
            continue
        try:
            tree = parse_module(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for al in node.names:
                    if al.asname:
                        imports[al.asname] = al.name
                    else:
                        imports[al.name.split(".")[0]] = al.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for al in node.names:
                    imports[al.asname or al.name] = f"{node.module}.{al.name}"
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                defs[node.name] = text
    return imports, defs


def _granted(snapshot, path: str, function: str) -> tuple[dict, list, list]:
    """(inputs, connections, effects) of the first step running `function` from `path`."""
    for entry in snapshot.steps_using(path, function):
        doc = snapshot.manifest_doc(entry.manifest)
        steps = doc.root.get("steps") if doc is not None and isinstance(doc.root, YMap) else None
        item = steps.items[entry.index] if isinstance(steps, YSeq) else None
        if not isinstance(item, YMap):
            continue
        inputs = item.get("inputs")
        wired = {p.name: str(p.value.data) for p in inputs.pairs
                 if isinstance(p.value, YScalar)} if isinstance(inputs, YMap) else {}

        return wired, _names(item, "connections"), _names(item, "effects")
    return {}, [], []


def _names(item: YMap, key: str) -> list:
    seq = item.get(key)
    return [n.data for n in seq.items if isinstance(n, YScalar)] if isinstance(seq, YSeq) else []


def _active(sig: Signature, call: _Open) -> int | None:
    if call.keyword is not None:
        for i, p in enumerate(sig.parameters):
            if p.label.lstrip("*").split("=")[0].split(":")[0].strip() == call.keyword:
                return i
        return None
    if not sig.parameters:
        return None
    star = next((i for i, p in enumerate(sig.parameters) if p.label.startswith("*")), None)
    if star is not None and call.commas >= star:
        return star  # `*args` takes every further positional argument
    return call.commas if call.commas < len(sig.parameters) else None


def signature_help(snapshot, path: str, line: int, column: int) -> SignatureHelp | None:
    """Signature help at (1-based line, code-point column) of step file `path`, or None."""
    text = snapshot.read_text(path)
    if text is None or not path.endswith(".py"):
        return None
    lines = split_lines(text)
    if not 1 <= line <= len(lines):
        return None
    chunks = _chunks(lines)
    here = next(i for i, (a, b) in enumerate(chunks) if a < line <= b)
    start = chunks[here][0]
    before = "".join(lines[start:line - 1]) + lines[line - 1][:column]
    if len(before) > _MAX_STATEMENT:
        return None
    call = _open_call(before)
    if call is None or not call.name:
        return None
    imports, defs = _imports_and_defs(lines, chunks, here)
    head, rest = call.name[0], call.name[1:]
    sig = None
    if head in imports:
        sig = signature_of(".".join([imports[head], *rest]))
    elif not rest and head in defs:
        inputs, connections, effects = _granted(snapshot, path, head)
        sig = step_signature(defs[head], head, inputs=inputs, connections=connections,
                             effects=effects)
    if sig is None:
        return None
    return SignatureHelp(sig, _active(sig, call))
