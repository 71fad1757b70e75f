"""Manifest completion: keys from the model, enum values, references, `code:` targets, input
names from the function's signature, and a snippet for a new step.

The cursor's context comes from the raw lines (completion_context.py), so it holds while the
YAML does not parse; the names it offers (sources, connections, effects, steps and what each
step reads) come from the parsed tree — of the buffer, else of the buffer with the cursor's line
cut back to its `key:` (`code: steps/match.py:` -> `code:`), else of the manifest's last check.
"""

from __future__ import annotations

import os
import typing

from stepsmith.runner.lines import function_spans, strip_eol
from stepsmith.runner.manifest import YMap, parse_manifest
from stepsmith.runner.manifest.model_paths import field_at, literal_values, model_at
from stepsmith.runner.manifest.yamlpos.nodes import step_items
from stepsmith.runner.model.grammar import (
    EFFECT_TARGETS,
    RESERVED_PARAMETERS,
    SOURCE_PREFIX,
    STEP_PREFIX,
    STEP_SUFFIX,
)
from stepsmith.runner.model.refs import CodeRef, StepOutputRef, parse_input_ref
from stepsmith.runner.workspace.index import code_target, norm
from stepsmith.runner.workspace.snapshot import WorkspaceSnapshot

from .completion_context import KEY_RE, YamlContext, layout, yaml_context
from .completion_items import Candidate, Item, items_for, word_start
from .manifest_services import declared
from .signatures import step_signature

__all__ = ["manifest_items"]

# `code:` candidates: a huge or hostile folder is cut, never walked or read whole
MAX_LISTED_FILES = 500
MAX_WALKED_DIRS = 2000
MAX_READ_CHARS = 4_000_000  # the files read for their functions, together
_SKIP_DIRS = {"fixtures", "__pycache__", "node_modules"}
_SUPPLIED = RESERVED_PARAMETERS  # parameters the runner hands in, never inputs


def manifest_items(snapshot: WorkspaceSnapshot, path: str, line: int, column: int) -> list[Item]:
    lines = snapshot.manifest_lines(path)
    if lines is None:
        return []
    ctx = yaml_context(lines, line, column)
    if ctx is None:
        return []
    doc = _tree(snapshot, path, lines, line)
    return items_for(_candidates(snapshot, path, doc, ctx), line, ctx.token_start,
                     ctx.token)


def _tree(snapshot: WorkspaceSnapshot, path: str, lines, line: int):
    """A parsed manifest with a tree, or None."""

    doc = snapshot.manifest_doc(path)
    if doc is not None and doc.root is not None:
        return doc
    raw = strip_eol(lines[line - 1])
    lay = layout(raw)
    cut = ""
    if lay is not None:
        cut = raw[:lay.content_col]
        m = KEY_RE.match(raw[lay.content_col:])
        if m:
            cut += raw[lay.content_col:lay.content_col + m.end()]
    repaired = "".join(lines[:line - 1]) + cut + "\n" + "".join(lines[line:])
    doc = parse_manifest(repaired)
    if doc.root is not None:
        return doc
    entry = snapshot.index.get(path)
    last = entry.doc if entry is not None else None
    return last if last is not None and last.root is not None else None


def _candidates(snapshot, path, doc, ctx: YamlContext) -> list[Candidate]:
    p = ctx.path
    if ctx.position == "entry":
        if model_at(p) is not None:
            out = _keys(snapshot, path, doc, p, ctx)
            if ctx.new_item and p[:1] == ("steps",) and len(p) == 2:
                out.insert(0, _new_step(ctx.token_start))
            return out
        return _items(doc, p[:-1])
    if ctx.position == "item":
        return _items(doc, p)
    if ctx.position == "key" and _is_list(p):  # a new item: its `- ` comes with it
        if p == ("steps",):
            return [_new_step(ctx.token_start + 2, "- ")]
        return [Candidate("- " + c.full, c.kind, label=c.full, detail=c.detail)
                for c in _items(doc, p)]
    if ctx.position == "key":
        return _keys(snapshot, path, doc, p, ctx)
    return _values(snapshot, path, doc, p, ctx.token)


# ------------------------------------------------------------------ keys


def _keys(snapshot, path, doc, p: tuple, ctx: YamlContext) -> list[Candidate]:
    existing = _existing_keys(doc, p, ctx)
    if len(p) == 3 and p[0] == "steps" and p[2] == "inputs":
        return [Candidate(f"{name}: ", "property", label=name,
                          detail="parameter of " + (_code(doc, p[1]) or "the step's function"))
                for name in _parameters(snapshot, path, doc, p[1]) if name not in existing]
    model = model_at(p)
    if model is None:
        return []
    if len(p) == 2 and p[0] == "effects" and existing & set(EFFECT_TARGETS):
        existing |= set(EFFECT_TARGETS)  # an effect targets a connection or a channel
    return [Candidate(f"{name}: ", "property", label=name,
                      detail="required" if info.is_required() else "optional",
                      documentation=info.description or "")
            for name, info in model.model_fields.items() if name not in existing]


def _existing_keys(doc, p: tuple, ctx: YamlContext) -> set[str]:
    """The keys written in the mapping, but the one being typed at the cursor."""

    node = doc.node(p) if doc is not None else None
    if not isinstance(node, YMap):
        return set()
    here = (ctx.line, ctx.token_start - len(ctx.quote))
    return {pair.name for pair in node.pairs if (pair.key.pos[0], pair.key.pos[1]) != here}


def _is_list(p: tuple) -> bool:
    _, tp = field_at(p)
    while tp is not None and typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp is not None and typing.get_origin(tp) is list


def _new_step(column: int, marker: str = "") -> Candidate:
    ind = " " * column
    body = (f"{marker}id: ${{1:new_step}}\n{ind}explanation: ${{2:what this step does, in plain "
            f"language}}\n{ind}code: steps/${{3:new_step}}.py:${{4:new_step}}")
    return Candidate(body, "snippet", label="new step", snippet=True,
                     detail="a step entry: id, explanation, code")


def _parameters(snapshot, path, doc, index: int) -> list[str]:
    """The step function's parameters that take an input (its signature, read not run)."""

    ref = CodeRef.parse(_code(doc, index))
    if ref is None:
        return []
    source = snapshot.read_text(code_target(path, ref))
    sig = step_signature(source, ref.function) if source is not None else None
    if sig is None:
        return []
    return [prm.label for prm in sig.parameters if prm.label not in _SUPPLIED]


# ------------------------------------------------------------------ values and items


def _values(snapshot, path, doc, p: tuple, token: str) -> list[Candidate]:
    out: list[Candidate] = []
    _, tp = field_at(p)
    if tp is not None:
        out += [Candidate(v, "value", detail=f"{p[-1]} value") for v in literal_values(tp)]
    if p and p[-1] == "connection" and p[0] in ("sources", "effects", "trigger"):
        out += _names(doc, "connections", "connection")
    if len(p) == 3 and p[-1] == "channel" and p[0] in ("sources", "effects"):
        out += [Candidate(c, "reference", detail="channel") for c in _channels(doc)]
    if len(p) == 3 and p[0] == "steps" and p[2] == "code":
        steps = _steps(doc)
        me = steps[p[1]][0] if isinstance(p[1], int) and 0 <= p[1] < len(steps) else None
        out += _code_targets(snapshot, path, me, token[:word_start(token)])
    if len(p) == 3 and p[0] == "steps" and p[2] in ("connections", "effects"):
        # `connections: |` is a list: one name in flow style keeps the YAML a list
        out += [Candidate(f"[{c.full}]", c.kind, label=c.full, detail=c.detail)
                for c in _items(doc, p)]
    if len(p) == 4 and p[0] == "steps" and p[2] == "inputs" and isinstance(p[1], int):
        out += _references(doc, p[1])
    return out


def _items(doc, p: tuple) -> list[Candidate]:
    if len(p) == 3 and p[0] == "steps" and p[2] in ("connections", "effects"):
        listed = set(_step_list(doc, p[1], p[2]))
        section, kind = (("connections", "connection") if p[2] == "connections"
                         else ("effects", "effect"))
        return [c for c in _names(doc, section, kind) if c.full not in listed]
    return []


def _channels(doc) -> list[str]:
    """The channels the manifest names already (channel sources and effects), once each."""

    root = doc.root if doc is not None else None
    out: dict[str, None] = {}
    for section in ("sources", "effects"):
        node = root.get(section) if isinstance(root, YMap) else None
        for pair in node.pairs if isinstance(node, YMap) else ():
            ch = _text(pair.value.get("channel")) if isinstance(pair.value, YMap) else None
            if ch:
                out[ch] = None
    return list(out)


def _names(doc, section: str, kind: str) -> list[Candidate]:
    return [Candidate(n, "reference", detail=kind) for n in (declared(doc, section) if doc else [])]


def _steps(doc) -> list[tuple[str | None, object]]:
    return [(_text(item.get("id")), item) for _, item in step_items(doc)] if doc else []


def _text(node) -> str | None:
    data = getattr(node, "data", None)
    return data if isinstance(data, str) else None


def _code(doc, index) -> str | None:
    node = doc.node(("steps", index, "code")) if doc is not None else None
    return _text(node)


def _step_list(doc, index, key: str) -> list[str]:
    node = doc.node(("steps", index, key)) if doc is not None else None
    data = getattr(node, "data", None)
    return [x for x in data if isinstance(x, str)] if isinstance(data, list) else []


def _references(doc, index: int) -> list[Candidate]:
    """`sources.X`, then `steps.<id>.output` of every step but this one and those that read
    (directly or not) this one's output: wiring them would make a cycle."""

    out = [Candidate(f"{SOURCE_PREFIX}{n}", "reference", detail="source")
           for n in (declared(doc, "sources") if doc else [])]
    steps = _steps(doc)
    me = steps[index][0] if 0 <= index < len(steps) else None
    reads = {sid: _reads(item) for sid, item in steps if sid}
    for sid, item in steps:
        if not sid or sid == me or (me is not None and me in _upstream(sid, reads)):
            continue
        explanation = _text(item.get("explanation")) or ""
        out.append(Candidate(f"{STEP_PREFIX}{sid}{STEP_SUFFIX}", "reference",
                             detail=f"output of step {sid}", documentation=explanation))
    return out


def _reads(item) -> set[str]:
    inputs = item.get("inputs")
    if not isinstance(inputs, YMap):
        return set()
    out = set()
    for pair in inputs.pairs:
        ref = parse_input_ref(getattr(pair.value, "data", None))
        if isinstance(ref, StepOutputRef):
            out.add(ref.step)
    return out


def _upstream(sid: str, reads: dict[str, set[str]]) -> set[str]:
    seen, todo = set(), [sid]
    while todo:
        for up in reads.get(todo.pop(), ()):
            if up not in seen:
                seen.add(up)
                todo.append(up)
    return seen


# ------------------------------------------------------------------ code: targets


def _code_targets(snapshot: WorkspaceSnapshot, manifest: str, step_id: str | None,
                  typed: str) -> list[Candidate]:
    """`path.py:function` for every top-level function of the Python files of the workflow
    folder (open buffers included) that can complete `typed`, and each file as `path.py:`
    (all that is left of one beyond the read budget). First the function named like the step, then those
    named like their file (`match.py:match`), then the rest (helpers usually come first in a
    file, and are rarely what a step runs)."""
    folder = os.path.dirname(manifest)
    ranked: list[tuple[int, int, Candidate]] = []
    budget = MAX_READ_CHARS
    for rel in _python_files(snapshot, folder, typed):
        head = rel + ":"
        names: list[str] = []
        if budget > 0:
            source = snapshot.read_text(norm(os.path.join(folder, rel))) or ""
            budget -= len(source)
            names = [f.name for f in function_spans(source)]
        # the file itself: `rel:`, after which the client asks again (`:` triggers)
        ranked.append((3, len(ranked), Candidate(head, "file", label=rel, detail="step file")))
        stem = os.path.splitext(os.path.basename(rel))[0]
        for fn in names:
            rank = 0 if fn == step_id else 1 if fn == stem else 2
            ranked.append((rank, len(ranked),
                           Candidate(f"{rel}:{fn}", "function", detail=f"function in {rel}")))
    return [c for _, _, c in sorted(ranked, key=lambda r: r[:2])]


def _python_files(snapshot: WorkspaceSnapshot, folder: str, typed: str) -> list[str]:
    """The workflow folder's .py files (no hidden folders, fixtures or symlinks) whose
    `path.py:` can complete `typed`, bounded."""

    def fits(rel: str) -> bool:
        return (rel + ":").startswith(typed) or typed.startswith(rel + ":")

    found: set[str] = set()
    for dirs, (dirpath, dirnames, filenames) in enumerate(os.walk(folder), 1):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS
                             and not os.path.islink(os.path.join(dirpath, d)))
        for n in filenames:
            full = os.path.join(dirpath, n)
            rel = os.path.relpath(full, folder).replace(os.sep, "/")
            if n.endswith(".py") and fits(rel) and not os.path.islink(full):
                found.add(rel)
        if len(found) >= MAX_LISTED_FILES or dirs >= MAX_WALKED_DIRS:
            break
    prefix = folder.rstrip(os.sep) + os.sep
    for p in snapshot.buffers:
        rel = os.path.relpath(p, folder).replace(os.sep, "/")
        if p.startswith(prefix) and p.endswith(".py") and fits(rel) and not any(
                part.startswith(".") or part in _SKIP_DIRS for part in rel.split("/")[:-1]):
            found.add(rel)
    return sorted(found)[:MAX_LISTED_FILES]
