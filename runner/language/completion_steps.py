"""Step-file completion: what the dialect lets a step reach, and what its manifest grants it.

- `import |` / `from |`: the allowed modules (the network ones only when every step running
  the file is `public_egress`, as SS105 demands);
- `from m import |`: the module's members (modules_api: never a submodule, SS102);
- `decimal.|`, `datetime.datetime.|`, an alias's `dt.|`: members as the dialect allows them
  (no underscores, nothing `check` refuses); a sampling method inserts its `seed=` (SS501);
- a name in a step function: its parameters and the names the file imports;
- `connections["|"]`: the aliases granted to the steps running the function;
- `effects.|` (the recorder parameter): `emit`; `effects.emit("|"`: the effects they declare.
Text-based on the cursor's line (mid-edit code rarely parses); the imports and the function's
`def` are read from their own lines.
"""

from __future__ import annotations

import ast
import re

from stepsmith.runner.lines import function_spans, strip_eol
from stepsmith.runner.pyparse import parse
from stepsmith.runner.validator import policy
from stepsmith.runner.workspace.snapshot import WorkspaceSnapshot

from . import modules_api
from .completion_items import Candidate, Item, items_for

__all__ = ["step_items"]

_CONNECTION_KEY = re.compile(r"\bconnections\s*\[\s*([\"'])(\w*)\Z")
_EFFECT_NAME = re.compile(r"\beffects\s*\.\s*emit\s*\(\s*([\"'])(\w*)\Z")
_IMPORT = re.compile(r"^\s*import\s+(?:[\w.]+(?:\s+as\s+\w+)?\s*,\s*)*([\w.]*)\Z")
_FROM = re.compile(r"^\s*from\s+([\w.]*)\Z")
_FROM_IMPORT = re.compile(
    r"^\s*from\s+([\w.]+)\s+import\s+\(?\s*((?:\w+(?:\s+as\s+\w+)?\s*,\s*)*)(\w*)\Z")
_ATTRIBUTE = re.compile(r"(?<![\w.])((?:\w+\s*\.\s*)+)(\w*)\Z")
_NAME = re.compile(r"(?<![\w.])(\w+)\Z")
_IMPORT_LINE = re.compile(r"^import\s+(.+)$")
_FROM_LINE = re.compile(r"^from\s+([\w.]+)\s+import\s+\(?([^()#]+)\)?\s*(?:#.*)?$")
_KINDS = {"module": "module", "class": "class", "function": "function", "constant": "constant"}
_MAX_DEF_LINES = 30


def step_items(snapshot: WorkspaceSnapshot, path: str, line: int, column: int) -> list[Item]:
    lines = snapshot.lines(path)
    if lines is None or not 1 <= line <= len(lines):
        return []
    prefix = strip_eol(lines[line - 1])[:column]
    for pattern, granted in ((_CONNECTION_KEY, "connections"), (_EFFECT_NAME, "effects")):
        m = pattern.search(prefix)
        if m:
            names = _granted(snapshot, path, lines, line, granted)
            kind = "connection" if granted == "connections" else "effect"
            return items_for([Candidate(n, "reference", detail=f"{kind} of this step")
                              for n in names], line, m.start(2), m.group(2))
    if _in_string_or_comment(prefix):
        return []
    found = _candidates(snapshot, path, lines, line, prefix)
    if found is None:
        return []
    candidates, token = found
    return items_for(candidates, line, column - len(token), token)


def _candidates(snapshot, path, lines, line, prefix) -> tuple[list[Candidate], str] | None:
    m = _IMPORT.match(prefix) or _FROM.match(prefix)
    if m:
        return _modules(snapshot, path), m.group(1)
    m = _FROM_IMPORT.match(prefix)
    if m:
        taken = {n.split()[0] for n in m.group(2).split(",") if n.strip()}
        return [_member(m.group(1), mem) for mem in modules_api.members(m.group(1))
                if mem.name in modules_api.importable_names(m.group(1))
                and mem.name not in taken], m.group(3)
    if re.match(r"^\s*(?:import|from)\b", prefix):
        return None
    aliases = _imported(lines)
    m = _ATTRIBUTE.search(prefix)
    if m:
        parts = [p for p in re.split(r"\s*\.\s*", m.group(1).strip()) if p]
        if parts == ["effects"] and "effects" in (_parameters(lines, line) or ()):
            return [Candidate("emit", "function", detail='effects.emit("name", payload)',
                              documentation="Record an intent for one of the step's declared "
                              "effects (nothing is performed locally).")], m.group(2)
        head = aliases.get(parts[0], parts[0] if parts[0] in modules_api.modules() else None)
        if head is None:
            return None
        dotted = ".".join([head, *parts[1:]])
        return [_member(dotted, mem) for mem in modules_api.members(dotted)], m.group(2)
    m = _NAME.search(prefix)
    if m:
        params = _parameters(lines, line)
        if params is None:
            return None
        out = [Candidate(p, "variable", detail="parameter of this step") for p in params]
        out += [Candidate(a, "module", detail=f"imported: {target}")
                for a, target in sorted(aliases.items())]
        return out, m.group(1)
    return None


def _member(dotted: str, mem) -> Candidate:
    rule = modules_api.CALL_ONLY.get(mem.name)
    if rule == "SS501":  # a sampling call is only accepted with its seed
        return Candidate(f"{mem.name}(${{1:n}}, seed=${{2:0}})", "function", label=mem.name,
                         detail=mem.signature or f"{dotted}.{mem.name}",
                         documentation=mem.doc + "\n\nSS501: give `seed=` explicitly.",
                         snippet=True)
    return Candidate(mem.name, _KINDS.get(mem.kind, "value"),
                     detail=mem.signature or f"{dotted}.{mem.name}", documentation=mem.doc)


def _modules(snapshot, path) -> list[Candidate]:
    out = [Candidate(m, "module", detail="allowed module") for m in modules_api.modules()]
    _, uses = snapshot.step_context(path)
    if uses and all(u.network == "public_egress" for u in uses):
        out += [Candidate(m, "module", detail="for public_egress steps")
                for m in sorted(policy.NETWORK_MODULES)]
    return out


def _imported(lines) -> dict[str, str]:
    """{local name: dotted target} of the file's one-line imports (`import x as y`,
    `from m import a, b as c`)."""
    out: dict[str, str] = {}
    for raw in lines:
        s = strip_eol(raw).strip()
        m = _IMPORT_LINE.match(s)
        if m and not s.startswith("import("):
            for part in m.group(1).split("#")[0].split(","):
                words = part.split()
                if len(words) == 3 and words[1] == "as":
                    out[words[2]] = words[0]
                elif len(words) == 1:
                    out[words[0].split(".")[0]] = words[0].split(".")[0]
            continue
        m = _FROM_LINE.match(s)
        if m:
            for part in m.group(2).split(","):
                words = part.split()
                if len(words) == 3 and words[1] == "as":
                    out[words[2]] = f"{m.group(1)}.{words[0]}"
                elif len(words) == 1 and words[0] != "*":
                    out[words[0]] = f"{m.group(1)}.{words[0]}"
    return out


def _parameters(lines, line: int) -> list[str] | None:
    """The parameters of the top-level function whose body holds `line`, None outside one."""
    text = "".join(lines)
    f = next((f for f in function_spans(text, lines) if f.line < line <= f.end_line), None)
    if f is None:
        return None
    header = ""
    for raw in lines[f.line - 1: min(f.line - 1 + _MAX_DEF_LINES, line - 1)]:
        header += strip_eol(raw) + "\n"
        if header.rstrip().endswith(":"):
            try:
                node = parse(header + "    pass\n").body[0]
            except (SyntaxError, ValueError, IndexError):
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                return [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
            return []
    return []


def _function_at(lines, line: int) -> str | None:
    text = "".join(lines)
    f = next((f for f in function_spans(text, lines) if f.line <= line <= f.end_line), None)
    return f.name if f is not None else None


def _granted(snapshot, path, lines, line, key: str) -> list[str]:
    """The `connections` (or `effects`) listed by every step running the function at `line`
    (every step running the file when the cursor is outside a function)."""
    out: list[str] = []
    for s in snapshot.steps_using(path, _function_at(lines, line)):
        doc = snapshot.manifest_doc(s.manifest)
        node = doc.node(("steps", s.index, key)) if doc is not None else None
        data = getattr(node, "data", None)
        for name in data if isinstance(data, list) else ():
            if isinstance(name, str) and name not in out:
                out.append(name)
    return out


def _in_string_or_comment(prefix: str) -> bool:
    quote = None
    i = 0
    while i < len(prefix):
        c = prefix[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#":
            return True
        i += 1
    return quote is not None
