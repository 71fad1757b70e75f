"""The names a workflow declares and every place each one is written: the one model behind
rename, definition/references/highlight on names, and workspace symbols.

A `Name` is (kind, name, scope). Scope is what a rename must cover:
  * step      - the workflow FOLDER: every manifest there shares `fixtures/<id>/`, and the
    fixtures recorded downstream name it in `recorded_from.upstream` (navigation_fixtures);
  * source, connection, effect - the manifests declaring it (their step files included:
    `connections["alias"]`, `connections.get("alias")`, `effects.emit("name", ...)` inside the
    functions their steps run);
  * function  - the step FILE: its `def` and every `code: <file>:<fn>` naming it.
An `Occurrence` spans just the name (never the quotes, never the `steps.` / `.output` around
it), in runner coordinates on the current text of its file (buffer over disk).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from stepsmith.runner.lines import function_spans, strip_eol
from stepsmith.runner.manifest import YMap, YScalar, YSeq
from stepsmith.runner.model import grammar
from stepsmith.runner.model.refs import (
    CodeRef,
    SourceRef,
    StepOutputRef,
    parse_input_ref,
)
from stepsmith.runner.problems import Span
from stepsmith.runner.pyparse import parse_module
from stepsmith.runner.workspace.diagnostics import is_manifest_path
from stepsmith.runner.workspace.fixtures import folder_fixture_files
from stepsmith.runner.workspace.index import code_target
from stepsmith.runner.workspace.snapshot import Location, WorkspaceSnapshot

from .navigation_fixtures import fixture_names

Kind = Literal["step", "source", "connection", "effect", "function"]


@dataclass(frozen=True)
class Name:
    kind: Kind
    name: str
    scope: tuple[str, ...]  # see the module docstring


@dataclass(frozen=True)
class Occurrence:
    location: Location
    declaration: bool


@dataclass(frozen=True)
class Written:
    """One name as written in one file (before its scope is known)."""

    kind: Kind
    name: str
    span: Span
    declaration: bool
    target: str | None = None  # function: the step file a `code:` names
    function: str | None = None  # step-file uses: the enclosing top-level function


def contains(span: Span, line: int, column: int) -> bool:
    return (span.line, span.column) <= (line, column) <= (span.end_line, span.end_column)


# ------------------------------------------------------------------ manifests


def _sub_span(lines, node, start: int, name: str) -> Span | None:
    """The span of `name` at `start` code points into a one-line scalar's value, or None when
    the scalar is not written plainly (escapes, block scalars, several lines)."""

    if not isinstance(node, YScalar) or node.style not in ("", "'", '"'):
        return None
    line, col, end_line, end_col = node.pos
    if line != end_line or line > len(lines):
        return None
    q = 1 if node.style else 0
    raw = lines[line - 1][col:end_col]
    a = q + start
    if raw[a:a + len(name)] != name:
        return None
    return Span(line, col + a, line, col + a + len(name))


def _str(node) -> str | None:
    data = getattr(node, "data", None)
    return data if isinstance(data, str) else None


def manifest_names(doc, lines, manifest_path: str) -> list[Written]:
    """Every declared name and every use of one in a parsed manifest (even a half-valid one)."""

    out: list[Written] = []
    root = doc.root if doc is not None else None
    if not isinstance(root, YMap):
        return out

    def add(kind: Kind, node, start: int = 0, name: str | None = None, decl=False, **kw):
        name = name if name is not None else _str(node)
        if name:
            span = _sub_span(lines, node, start, name)
            if span is not None:
                out.append(Written(kind, name, span, decl, **kw))

    def keys(section: str, kind: Kind) -> None:
        sec = root.get(section)
        if isinstance(sec, YMap):
            for pair in sec.pairs:
                add(kind, pair.key, decl=True)
                if isinstance(pair.value, YMap) and kind in ("source", "effect"):
                    add("connection", pair.value.get("connection"))

    def items(node, kind: Kind) -> None:
        if isinstance(node, YSeq):
            for item in node.items:
                add(kind, item)

    keys("connections", "connection")
    keys("sources", "source")
    keys("effects", "effect")
    trigger = root.get("trigger")
    event = trigger.get("event") if isinstance(trigger, YMap) else None
    if isinstance(event, YMap):
        add("connection", event.get("connection"))
    steps = root.get("steps")
    for item in steps.items if isinstance(steps, YSeq) else ():
        if not isinstance(item, YMap):
            continue
        add("step", item.get("id"), decl=True)
        code = item.get("code")
        ref = CodeRef.parse(_str(code))
        if ref is not None:
            add("function", code, ref.function_start, ref.function,
                target=code_target(manifest_path, ref))
        inputs = item.get("inputs")
        for pair in inputs.pairs if isinstance(inputs, YMap) else ():
            ref = parse_input_ref(_str(pair.value))
            if isinstance(ref, SourceRef):
                add("source", pair.value, ref.name_start, ref.name)
            elif isinstance(ref, StepOutputRef):
                add("step", pair.value, ref.step_start, ref.step)
        items(item.get("connections"), "connection")
        items(item.get("effects"), "effect")
    return out


# ------------------------------------------------------------------ step files


def _column(line_text: str, byte_offset: int) -> int:
    """ast columns are UTF-8 byte offsets; spans are code points."""
    return len(line_text.encode("utf-8")[:byte_offset].decode("utf-8", "replace"))


def _literal_name(lines, node) -> tuple[str, Span] | None:
    """A plain string literal's value and the span inside its quotes (no prefix, no escape)."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return None
    if node.lineno != node.end_lineno or node.lineno > len(lines):
        return None
    text = lines[node.lineno - 1]
    a, b = _column(text, node.col_offset), _column(text, node.end_col_offset)
    raw = text[a:b]
    if len(raw) < 2 or raw[0] not in "'\"" or raw[1:-1] != node.value:
        return None
    return node.value, Span(node.lineno, a + 1, node.lineno, b - 1)


def _uses_in(lines, fn: ast.FunctionDef) -> Iterator[tuple[Kind, str, Span]]:
    for node in ast.walk(fn):
        found, kind = None, None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and node.value.id == "connections":
            found, kind = _literal_name(lines, node.slice), "connection"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.args:
            owner, attr = node.func.value.id, node.func.attr
            if (owner, attr) == ("connections", "get"):
                found, kind = _literal_name(lines, node.args[0]), "connection"
            elif (owner, attr) == ("effects", "emit"):
                found, kind = _literal_name(lines, node.args[0]), "effect"
        if found is not None:
            yield kind, found[0], found[1]


def step_file_names(text: str, lines) -> list[Written]:
    """`def` names (declarations) and the connection / effect names the functions write.
    A file that does not parse yields its `def`s by text only (lines.function_spans)."""

    out = [Written("function", f.name, Span(f.line, f.column, f.line, f.column + len(f.name)),
                   True, function=f.name) for f in function_spans(text, lines)]
    try:
        tree = parse_module(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return out
    plain = [strip_eol(ln) for ln in lines]
    defs = {f.name for f in out}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out += [Written(k, n, s, False, function=stmt.name) for k, n, s in _uses_in(plain, stmt)]
            out += [Written("function", n, s, False, function=stmt.name)
                    for n, s in _calls_of(plain, stmt, defs)]
    return out


def _calls_of(lines, fn: ast.FunctionDef, defs: set[str]) -> Iterator[tuple[str, Span]]:
    """Loads of the file's own top-level functions inside `fn` (a helper called by name),
    unless `fn` binds that name itself (a parameter or a local)."""
    bound = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    bound |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
              and isinstance(n.ctx, (ast.Store, ast.Del))}
    bound |= {n.name for n in ast.walk(fn) if n is not fn and isinstance(
        n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and hasattr(n, "name")}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in defs \
                and node.id not in bound and node.lineno <= len(lines):
            text = lines[node.lineno - 1]
            a = _column(text, node.col_offset)
            if text[a:a + len(node.id)] == node.id:
                yield node.id, Span(node.lineno, a, node.lineno, a + len(node.id))


# ------------------------------------------------------------------ over the snapshot


class Names:
    """Per-request memo of the names written in each file of one snapshot."""

    def __init__(self, snapshot: WorkspaceSnapshot) -> None:
        self.snapshot = snapshot
        self._memo: dict[str, list[Written]] = {}

    def written(self, path: str) -> list[Written]:
        hit = self._memo.get(path)
        if hit is None:
            s = self.snapshot
            if is_manifest_path(path):
                doc = s.manifest_doc(path)
                hit = manifest_names(doc, s.manifest_lines(path, doc), path) if doc else []
            elif path.endswith(".json"):  # a fixture: the step ids / sources it names
                text = s.read_text(path)
                hit = [Written(kind, k, sp, False) for kind, k, sp in fixture_names(path, text or "")]
            else:
                text = s.read_text(path)
                hit = step_file_names(text, s.lines(path)) if text is not None else []
            self._memo[path] = hit
        return hit

    def manifests_in(self, folder: str) -> list[str]:
        return [p for p in sorted(self.snapshot.index.manifests) if os.path.dirname(p) == folder]

    def functions_run(self, manifest: str) -> set[tuple[str, str]]:
        """(step file, function) of every step of `manifest`."""
        return {(s.target, s.code.function) for s in self.snapshot.steps_of(manifest)
                if s.target is not None}

    def manifests_running(self, step_path: str, function: str | None) -> tuple[str, ...]:
        return tuple(sorted({s.manifest for s in self.snapshot.steps_using(step_path, function)}))

    # -------------------------------------------------------------- the name at a cursor
    def at(self, path: str, line: int, column: int,
           closed: bool = True) -> tuple[Name, Span] | None:
        """The name at the cursor. `closed=False` skips growing its scope over shared step
        files (enough for one document's highlights, and reads no other file)."""
        for w in self.written(path):
            if contains(w.span, line, column):
                return self.name_of(path, w, closed), w.span
        return None

    def name_of(self, path: str, w: Written, closed: bool = True) -> Name:
        grow = self.closed if closed else (lambda n: n)
        if path.endswith(".json"):  # <folder>/fixtures/<step or _workflow>/<case>.json
            folder = os.path.dirname(os.path.dirname(os.path.dirname(path)))
            if w.kind == "step":
                return Name("step", w.name, (folder,))
            return grow(Name(w.kind, w.name, tuple(self.manifests_in(folder))))
        if w.kind == "step":
            return Name("step", w.name, (os.path.dirname(path),))
        if w.kind == "function":
            return Name("function", w.name, (w.target or path,))
        if w.function is not None:  # a use inside a step file
            return grow(Name(w.kind, w.name, self.manifests_running(path, w.function)))
        return grow(Name(w.kind, w.name, (path,)))

    def closed(self, name: Name) -> Name:
        """A connection / effect scope grown until closed: a step file shared by several
        workflows writes the name for all of them, so renaming it renames it in each."""
        if name.kind not in ("connection", "effect"):
            return name
        scope, todo = set(name.scope), list(name.scope)
        while todo:
            for target, fn in self.functions_run(todo.pop()):
                if any(w.kind == name.kind and w.name == name.name and w.function == fn
                       and not w.declaration for w in self.written(target)):
                    for m in self.manifests_running(target, fn):
                        if m not in scope:
                            scope.add(m)
                            todo.append(m)
        return Name(name.kind, name.name, tuple(sorted(scope)))

    # -------------------------------------------------------------- every occurrence
    def occurrences(self, name: Name, only: str | None = None) -> list[Occurrence]:
        """Every occurrence of `name`; with `only`, those in that one file (highlight runs on
        every cursor move: it must not read the folder's fixtures)."""
        out: list[Occurrence] = []

        def take(path: str, written: Callable[[], Iterable[Written]]) -> None:
            if only is not None and path != only:
                return  # not even parsed
            out.extend(Occurrence(Location(path, w.span), w.declaration) for w in written()
                       if w.kind == name.kind and w.name == name.name)

        if name.kind == "step":
            for m in self.manifests_in(name.scope[0]):
                take(m, lambda m=m: self.written(m))
            for f in folder_fixture_files(name.scope[0]) if only is None or only.endswith(".json") else ():
                take(f, lambda f=f: self.written(f))
        elif name.kind == "function":
            (step_path,) = name.scope
            take(step_path, lambda: self.written(step_path))  # its def and calls by name
            for m in self.snapshot.manifests_using(step_path):
                take(m.path, lambda m=m: (w for w in self.written(m.path) if w.target == step_path))
        else:
            files: dict[str, set[str]] = {}
            for m in name.scope:
                take(m, lambda m=m: self.written(m))
                for target, fn in self.functions_run(m):
                    files.setdefault(target, set()).add(fn)
            for target in sorted(files):
                take(target, lambda t=target: (w for w in self.written(t)
                                               if not w.declaration and w.function in files[t]))
            if name.kind == "source":  # the folders' workflow cases give sources by name
                for folder in sorted({os.path.dirname(m) for m in name.scope}):
                    cases = os.path.join(folder, grammar.FIXTURES_DIR, grammar.WORKFLOW_CASES_DIR)
                    for f in folder_fixture_files(folder):
                        if os.path.dirname(f) == cases:
                            take(f, lambda f=f: self.written(f))
        return sorted(set(out), key=lambda o: (o.location.path, o.location.span.line,
                                               o.location.span.column))
