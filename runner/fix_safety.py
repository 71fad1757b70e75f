"""Whether a fix of a step file keeps the program meaning what it meant, decided on the whole
file (the validator computes each fix on the one statement it checks and cannot see the rest).

`vet(source, problems)` is applied where step-file fixes reach a reader: the workflow check
and `check` of a lone file (so `check --fix`, `--statistics`, the JSON formats and MCP agree)
and the editor's code actions and fix-all (on the snapshot's text, when asked for: never per
keystroke). A fix that would break the file (no longer compiles) or change what a name refers
to anywhere (a removed import still used leaves it undefined) is not offered at all, not even
as a guess. Removing a `typing` import used only in annotations takes those annotations with
it (fix_annotations.py), in the same fix. `keeps_meaning(before, after)` is the one judgement,
also applied by fix-all to the fixes of one round together.

A name's meaning is how it resolves in each scope (`symtable`, CPython's own analysis): local
(with what binds it: parameter, import of what, assignment, def), free (bound in which
enclosing function), module-level, builtin, possibly a star import's, or undefined. After a
fix every name still referenced resolves exactly as before. What the host Python cannot
compile has no safe fix (fails closed).
"""

from __future__ import annotations

import _symtable  # CPython's own scope analysis (what `symtable` wraps)
import ast
import builtins
import dataclasses
import functools

from stepsmith.runner.fix_annotations import statements, with_annotations
from stepsmith.runner.fixes import apply_edits, fix_data, fixes_of, with_alternatives
from stepsmith.runner.problems import Problem

_FIX_KEYS = ("fix", "title", "edits", "alternatives", "binds")
_BUILTINS = frozenset(dir(builtins))
_NAMED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _text(source: str | bytes) -> str | None:
    if isinstance(source, (bytes, bytearray)):
        try:
            source = bytes(source).decode("utf-8")
        except UnicodeDecodeError:
            return None
    return source.removeprefix("\ufeff")


def vet(source: str | bytes, problems: list[Problem]) -> list[Problem]:
    """`problems` of the step file `source`, each keeping only the fixes that keep the file
    meaning what it meant (a removed typing import takes its annotations along)."""
    if not any((p.data or {}).get("edits") for p in problems):
        return problems
    text = _text(source)
    return [_vetted(text, p) if (p.data or {}).get("edits") else p for p in problems]


def _vetted(text: str | None, p: Problem) -> Problem:
    kept = []
    raw = [p.data, *(p.data.get("alternatives") or [])]
    for data, fix in zip(raw, fixes_of(p)) if text is not None else ():
        ok = _checked(text, data, fix)
        if ok is not None:
            kept.append(ok)
    rest = {k: v for k, v in p.data.items() if k not in _FIX_KEYS}
    return dataclasses.replace(p, data={**rest, **(with_alternatives(kept) or {})})


def _checked(text: str, data: dict, fix) -> dict | None:
    try:
        after = apply_edits(text, fix.edits)
    except ValueError:
        return None
    if keeps_meaning(text, after):
        return data
    if fix.kind == "remove-import":
        wider = with_annotations(text, data.get("binds"), fix.edits)
        if wider is not None:
            edits, names = wider
            try:
                after = apply_edits(text, edits)
            except ValueError:
                return None
            if keeps_meaning(text, after):
                title = f"{fix.title} and the annotations using {', '.join(names)}"
                out = fix_data(fix.kind, title, ((e.span, e.new_text) for e in edits))
                return {**out, "binds": data.get("binds")}
    return None


def keeps_meaning(before: str, after: str) -> bool:
    """`after` compiles and every name it references resolves as it did in `before`."""
    if before == after:
        return True
    old, new = _resolution(before), _resolution(after)
    if old is None or new is None:
        return False
    for scope, names in new.items():
        was = old.get(scope)
        if was is None or any(was.get(n) != how for n, how in names.items()):
            return False
    return True


# ------------------------------------------------------------------ how each name resolves


@functools.lru_cache(maxsize=64)
def _resolution(text: str) -> dict | None:
    """{scope path: {referenced name: how it resolves}}, or None when `text` does not
    compile on this Python (then no fix of it is provably safe)."""
    try:
        compile(text, "<step>", "exec", dont_inherit=True)
        tree = ast.parse(text)
        # the raw tables: the `symtable` wrapper looks for each symbol's namespaces in every
        # child table, quadratic in the functions of a file (seconds for 2,000 of them)
        top = _symtable.symtable(text, "<step>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    return _Resolver(tree, top).run()


_SCOPE = _symtable.SCOPE_MASK
_LOCAL = (_symtable.LOCAL, _symtable.CELL)


def _scope(flags: int) -> int:
    return (flags >> _symtable.SCOPE_OFF) & _SCOPE


class _Resolver:
    def __init__(self, tree: ast.Module, top):
        self.top = top
        self.tree = tree
        self.nodes = {(n.name, n.lineno): n for n in statements(tree) if isinstance(n, _NAMED)}
        self.star = any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
                        for n in _own_statements(tree))
        self.bindings: dict[int, dict[str, tuple]] = {}
        self.module = top.symbols
        self.assigned_global = {name for t in _tables(top) if t is not top
                                for name, flags in t.symbols.items()
                                if _scope(flags) == _symtable.GLOBAL_EXPLICIT
                                and flags & _symtable.DEF_LOCAL}

    def run(self) -> dict:
        out: dict = {}
        stack = [(self.top, ("module",), ())]
        while stack:
            table, path, chain = stack.pop()
            out[path] = {name: self.how(name, flags, table, chain)
                         for name, flags in table.symbols.items() if flags & _symtable.USE}
            seen: dict = {}
            for child in table.children:
                key = (child.type, child.name)
                seen[key] = seen.get(key, -1) + 1
                stack.append((child, (*path, (*key, seen[key])), (*chain, (table, path))))
        return out

    def kinds(self, name: str, flags: int, table) -> tuple:
        """What binds `name` in `table`: parameter, assignment, def/class (each has a child
        table of its name), imports (of what)."""
        return (bool(flags & _symtable.DEF_PARAM), bool(flags & _symtable.DEF_LOCAL),
                any(c.name == name for c in table.children) if flags & _symtable.DEF_LOCAL
                else False,
                self.imports_in(table).get(name, ()) if flags & _symtable.DEF_IMPORT else ())

    def imports_in(self, table) -> dict[str, tuple]:
        """{name: what the scope's imports bind it to}."""
        key = id(table)
        if key not in self.bindings:
            node = self.tree if table is self.top else self.nodes.get((table.name, table.lineno))
            found: dict[str, set] = {}
            for st in _own_statements(node) if node is not None else ():
                if isinstance(st, (ast.Import, ast.ImportFrom)):
                    for name, what in _bound(st):
                        found.setdefault(name, set()).add(what)
            self.bindings[key] = {n: tuple(sorted(w)) for n, w in found.items()}
        return self.bindings[key]

    def how(self, name: str, flags: int, table, chain) -> tuple:
        if table is self.top:
            return self.global_(name)
        scope = _scope(flags)
        if scope in _LOCAL:
            return ("local", self.kinds(name, flags, table))
        if scope == _symtable.FREE:
            for outer, where in reversed(chain):
                if outer.type != _symtable.TYPE_FUNCTION:
                    continue
                bound = outer.symbols.get(name)
                if bound is not None and _scope(bound) in _LOCAL:
                    return ("free", where, self.kinds(name, bound, outer))
            return ("free",)
        return self.global_(name)

    def global_(self, name: str) -> tuple:
        flags = self.module.get(name, 0)
        if flags & (_symtable.DEF_IMPORT | _symtable.DEF_LOCAL):
            return ("module", self.kinds(name, flags, self.top), name in self.assigned_global)
        if name in self.assigned_global:
            return ("module", (), True)
        if self.star:
            return ("star",)
        return ("builtin",) if name in _BUILTINS else ("undefined",)


def _tables(top):
    stack = [top]
    while stack:
        t = stack.pop()
        yield t
        stack.extend(t.children)


def _own_statements(node):
    """The statements of `node`'s own scope (nested defs and classes are not entered)."""
    stack = list(getattr(node, "body", ()))
    while stack:
        st = stack.pop()
        yield st
        if isinstance(st, _NAMED):
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(st, field, ()) or ())


def _bound(st) -> list[tuple[str, str]]:
    if isinstance(st, ast.ImportFrom):
        base = "." * (st.level or 0) + (st.module + "." if st.module else "")
        return [(a.asname or a.name, base + a.name) for a in st.names if a.name != "*"]
    return [(a.asname or a.name.partition(".")[0], a.name if a.asname else
             a.name.partition(".")[0]) for a in st.names]

