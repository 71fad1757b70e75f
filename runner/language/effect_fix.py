""""Declare this effect": the manifest edit for SS601 (`effects.emit("name")` of an effect the
step does not declare). The validator only knows the step file; the manifests that run it are
the snapshot's, so the edit is made here, on each manifest's positioned tree.

The step's `effects` list gains the name. When the workflow itself does not declare the
effect, it gains an entry too, and that needs what the code does not say: the connection
(offered only when the workflow has exactly one, so nothing is guessed), the kind (`create`,
stated in the title) and the key field (the first key of the payload dict literal, which then
satisfies SS602). Without those there is no fix. Never a fix-all candidate: it widens what a
step may reach.
"""

from __future__ import annotations

import ast
import json

from stepsmith.runner.fixes import TextEdit
from stepsmith.runner.lines import split_lines, strip_eol
from stepsmith.runner.manifest.yamlpos import YMap, YSeq
from stepsmith.runner.model.grammar import is_name
from stepsmith.runner.problems import Problem, Span
from stepsmith.runner.pyparse import parse_module


def _line(lines, n: int) -> str:
    return strip_eol(lines[n - 1]) if 0 < n <= len(lines) else ""


def _after_line(lines, n: int, new: list[str]) -> TextEdit:
    """Whole new lines after line `n` (indent included in `new`)."""
    raw = lines[n - 1] if 0 < n <= len(lines) else ""
    eol = "\r\n" if raw.endswith("\r\n") else "\n"
    if raw.endswith(("\n", "\r")):
        return TextEdit(Span(n + 1, 0, n + 1, 0), "".join(t + eol for t in new))
    return TextEdit(Span(n, len(raw), n, len(raw)), "".join(eol + t for t in new))


def _before_close(node) -> Span | None:
    """Insertion point before the `]` / `}` of a one-line flow collection."""
    sp = node.span
    if sp.line != sp.end_line:
        return None
    return Span(sp.end_line, sp.end_column - 1, sp.end_line, sp.end_column - 1)


def _end_line(pair) -> int:
    return max(pair.key.span.end_line, pair.value.span.end_line)


def add_to_list(lines, step: YMap, key: str, name: str) -> TextEdit | None:
    """`name` appended to the step's list `key` (created after its last pair when absent)."""
    pair = step.pair(key)
    if pair is None:
        if step.flow:
            at = _before_close(step)
            return TextEdit(at, f", {key}: [{name}]") if at else None
        last = step.pairs[-1]
        if _line(lines, last.key.span.line)[:last.key.span.column].strip("- "):
            return None
        return _after_line(lines, _end_line(last), [" " * step.pairs[0].key.span.column
                                                     + f"{key}: [{name}]"])
    seq = pair.value
    if not isinstance(seq, YSeq):
        return None
    if seq.flow:
        at = _before_close(seq)
        return TextEdit(at, (", " if seq.items else "") + name) if at else None
    if not seq.items:
        return None
    last = seq.items[-1]
    text = _line(lines, last.span.line)
    dash = text.rfind("-", 0, last.span.column)
    if dash < 0 or text[:dash].strip():
        return None
    return _after_line(lines, last.span.end_line, [" " * dash + "- " + name])


def declare_in_workflow(lines, root: YMap, name: str, connection: str, key: str) -> TextEdit | None:
    entry = f"{name}: {{connection: {connection}, kind: create, key: {key}}}"
    pair = root.pair("effects")
    if pair is None:
        steps = root.pair("steps")
        if steps is None or steps.key.span.column != 0:
            return None
        return TextEdit(Span(steps.key.span.line, 0, steps.key.span.line, 0),
                        "effects:\n  " + entry + ("\r\n" if lines[0].endswith("\r\n") else "\n"))
    effects = pair.value
    if not isinstance(effects, YMap):
        return None
    if effects.flow:
        at = _before_close(effects)
        return TextEdit(at, (", " if effects.pairs else "") + entry) if at else None
    if not effects.pairs:
        return None
    return _after_line(lines, _end_line(effects.pairs[-1]),
                       [" " * effects.pairs[0].key.span.column + entry])


def payload_key(source: str, problem: Problem) -> str | None:
    """The first string key of the payload dict literal of the `emit` whose name literal is
    at the problem's span (parsed from the step file's current text)."""
    try:
        tree = parse_module(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    name = (problem.data or {}).get("effect")
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                and node.args[0].value == name and node.args[0].lineno == problem.span.line):
            continue
        given = [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "payload")]
        payload = given[0] if given else None
        if isinstance(payload, ast.Dict):
            for k in payload.keys:
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and is_name(k.value):
                    return k.value
    return None


def declare_effect(snapshot, path: str, problem: Problem) -> list[tuple[str, str, dict]]:
    """[(title, manifest path, {path: edits})] declaring the problem's effect for the steps
    it names, one per manifest running this file."""
    data = problem.data or {}
    name, lacking = data.get("effect"), data.get("steps")
    if not isinstance(name, str) or not is_name(name) or not isinstance(lacking, list):
        return []
    out = []
    for m in snapshot.manifests_using(path):
        doc = snapshot.manifest_doc(m.path)
        root = getattr(doc, "root", None)
        if not isinstance(root, YMap):
            continue
        lines = split_lines(doc.text)
        edits, steps = [], []
        for entry in snapshot.steps_of(m.path, doc):
            if entry.id in lacking and entry.target == path:
                item = root.get("steps").items[entry.index]
                edit = add_to_list(lines, item, "effects", name)
                if edit is None:
                    return []
                edits.append(edit)
                steps.append(entry.id)
        if not edits:
            continue
        declared = root.get("effects")
        title = f"Declare effect '{name}' for step {', '.join(f'`{s}`' for s in steps)}"
        if not (isinstance(declared, YMap) and name in declared.index):
            conns = root.get("connections")
            aliases = list(conns.index) if isinstance(conns, YMap) else []
            key = payload_key(snapshot.read_text(path) or "", problem)
            if len(aliases) != 1 or key is None:
                continue
            wf = declare_in_workflow(lines, root, name, aliases[0], key)
            if wf is None:
                continue
            edits.append(wf)
            title += f" and in the workflow (kind create through {json.dumps(aliases[0])}, " \
                     f"key {json.dumps(key)}: check them)"
        out.append((title, m.path, {m.path: tuple(edits)}))
    return out

