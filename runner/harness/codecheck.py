"""The in-sandbox check of a step's compiled code: what compile() made of the bytes received
is checked before anything executes (fail closed).

Part of the harness (inside.py): runs INSIDE the sandbox, in the harness's own namespace.
`bundle()` compiles the harness parts and inside.py as one module, this file's body first:
definitions only (tests/sandbox/test_sandbox_startup.py), so the names they use (`CHECK`,
`_SOURCE`) are the harness's globals, resolved when called.

The parent validates the source with the whole dialect (validator/). This is the second,
independent layer: a check of the code objects themselves, which needs no `ast` (running the
validator again in here, its node types and modules loaded into every sandbox, was most of
a fresh sandbox's cost above bare bwrap). It refuses what a way out of the dialect needs and
the restricted builtins do not already stop at run time:
- attribute names (also `from m import name` and a class pattern's keywords): private or
  dunder (SS201), frame/code internals (SS303), `mro` (SS304), a module an allowed module
  imports (SS305); `.format`/`.format_map` only on a string literal (or `str.format(literal,
  ...)`) whose fields pass the same check (SS205, SS206);
- global names: the forbidden builtins (SS301), dunder names (SS202), `global` (SS403);
- imports of a module outside the allowed ones (SS101, SS102, SS105);
- classes (SS401) and async code (SS402).
The getattr family, `type`, `id`, imports, effects and sampling are also enforced at run time
(restricted.py, facades.py); decorators, top-level statements and module attribute
assignment are the validator's alone (style, not a way out). `CHECK` (built by the pinned
interpreter itself, build.py `code_table`) says which opcodes name what in its bytecode: an
opcode naming something that the table does not know is refused (SS003).
"""

# ruff: noqa: F821  (the harness's globals)


#: Enough to say why; the first of them decides anyway. Past it the check stops (a file of
#: thousands of refusals is refused in time, not killed at the CPU limit).
_MAX_PROBLEMS = 100
_CACHE = {}  # per check: the source's lines, each code object's position table


def _check_code(code, network):
    """Problems (dicts, as the validator reports them) of `code` and the code inside it.
    `network`: the request allows the network modules (its `allow_urllib`)."""
    _CACHE.clear()
    C = CHECK
    kinds, consts_ops, ext, cache = C["names"], C["consts"], C["extended_arg"], C["cache"]
    build_class, match_class = C["build_class"], C["match_class"]
    async_flags = C["async_flags"]
    allowed = C["allowed"] | (C["network"] if network else frozenset())
    CodeType = type(code)
    out = []
    todo = [code]
    while todo and len(out) < _MAX_PROBLEMS:
        co = todo.pop()
        consts, names, raw = co.co_consts, co.co_names, co.co_code
        todo.extend(c for c in consts if type(c) is CodeType)
        if co.co_flags & async_flags:
            out.append(_at(co, 0, "SS402", f"async code ({co.co_name}) is not allowed in a step"))
        arg = 0
        prev = prev2 = None  # (opcode, arg) of the two instructions before, caches skipped
        template = None  # `str.format`: the next instruction must be the literal template
        for i in range(0, len(raw), 2):
            op = raw[i]
            if op == cache:
                continue
            if len(out) >= _MAX_PROBLEMS:
                break
            if op == ext:
                arg = (arg | raw[i + 1]) << 8
                continue
            a, arg = arg | raw[i + 1], 0
            if template is not None:
                if op not in consts_ops or type(consts[a]) is not str:
                    out.append(_at(co, template, "SS206", "`str.format` with a template that "
                                   "is not a string literal"))
                else:
                    _fields(consts[a], co, i, out)
                template = None
            kind = kinds.get(op)
            if kind is not None:
                what, shift = kind
                name = names[a >> shift] if shift >= 0 else None
                if what == "attr":
                    _attribute(name, co, i, out, prev, names, consts, kinds, consts_ops)
                    if name in ("format", "format_map") and prev is not None \
                            and kinds.get(prev[0], ("", -1))[0] == "global" \
                            and names[prev[1] >> kinds[prev[0]][1]] == "str":
                        template = i
                elif what == "global":
                    _global(name, co, i, out)
                elif what == "import":
                    # `from . import x`: the level is the constant loaded two before
                    level = consts[prev2[1]] if prev2 is not None and prev2[0] in consts_ops \
                        else prev2[1] if prev2 is not None and prev2[0] == C["small_int"] \
                        else None
                    if level != 0 or type(level) is not int:
                        out.append(_at(co, i, "SS103", "a relative import (or one whose level "
                                       "is not known) is not allowed in a step"))
                    elif name not in allowed:
                        out.append(_import_problem(name, co, i, C))
                elif what == "store_global":
                    out.append(_at(co, i, "SS403", f"`global {name}` is not allowed in a step"))
                else:
                    out.append(_at(co, i, "SS003", "an instruction this check does not know "
                                   f"(opcode {op}) names something: refused"))
            elif op == build_class:
                out.append(_at(co, i, "SS401", "class definitions are not allowed in a step"))
            elif op == match_class:
                kw = consts[prev[1]] if prev is not None and prev[0] in consts_ops else None
                if type(kw) is not tuple:
                    out.append(_at(co, i, "SS201", "a class pattern whose keywords are not "
                                   "known: refused"))
                else:
                    for name in kw:
                        _attribute(name, co, i, out, None, names, consts, kinds, consts_ops)
            prev2, prev = prev, (op, a)
    _CACHE.clear()
    return out[:_MAX_PROBLEMS]


def _attribute(name, co, i, out, prev, names, consts, kinds, consts_ops):
    """An attribute read, written or imported by name."""
    C = CHECK
    if type(name) is not str or name.startswith("_"):
        out.append(_at(co, i, "SS201", f"private or dunder attribute {name!r} is not "
                       "allowed in a step"))
    elif name.startswith(C["frame_prefixes"]):
        out.append(_at(co, i, "SS303", f"frame, code or generator internals ({name!r}) are "
                       "not allowed in a step"))
    elif name in C["mro"]:
        out.append(_at(co, i, "SS304", f"{name!r} is not allowed in a step"))
    elif name in C["module_leaks"]:
        out.append(_at(co, i, "SS305", f"attribute {name!r} names a module the allowed "
                       "modules import: not allowed in a step"))
    elif name in ("format", "format_map") and prev is not None:
        if prev[0] in consts_ops and type(consts[prev[1]]) is str:
            _fields(consts[prev[1]], co, i, out)
        elif not (kinds.get(prev[0], ("", -1))[0] == "global"
                  and names[prev[1] >> kinds[prev[0]][1]] == "str"):
            out.append(_at(co, i, "SS206", f"`.{name}` on a string that is not a literal"))


def _global(name, co, i, out):
    C = CHECK
    if name in C["forbidden_builtins"]:
        out.append(_at(co, i, "SS301", f"{name!r} is not allowed in a step"))
    elif name.startswith("__") and name != "__doc__":
        out.append(_at(co, i, "SS202", f"dunder name {name!r} is not allowed in a step"))


def _fields(template, co, i, out, depth=0):
    """A format string's fields: every attribute a field reads passes `_attribute`."""
    import _string  # built into the interpreter: the parser str.format itself uses

    try:
        for _literal, field, spec, _conv in _string.formatter_parser(template):
            if field is not None:
                _first, rest = _string.formatter_field_name_split(field)
                for is_attr, key in rest:
                    if is_attr:
                        before = len(out)
                        _attribute(key, co, i, out, None, (), (), {}, ())
                        if len(out) > before:
                            out[-1]["code"] = "SS205"
            if spec and depth < 4:
                _fields(spec, co, i, out, depth + 1)
            elif spec:
                out.append(_at(co, i, "SS205", "format string nested too deep"))
    except ValueError as exc:  # a malformed template fails when formatted too, but refuse
        out.append(_at(co, i, "SS205", f"format string not understood: {exc}"))


def _import_problem(name, co, i, C):
    root = name.partition(".")[0]
    if name in C["network"]:
        return _at(co, i, "SS105", f"{name!r} is only available to public_egress steps")
    if root in C["allowed"]:
        return _at(co, i, "SS102", f"import of submodule {name!r} is not allowed")
    return _at(co, i, "SS101", f"import of {name!r} is not allowed (allowed: "
               + ", ".join(sorted(C["allowed"])) + ")")


def _at(co, offset, code, message):
    """A problem at the source range of the instruction at `offset` (co_positions counts
    UTF-8 bytes; the validator reports characters)."""
    line, end_line, col, end_col = co.co_firstlineno, None, 0, None
    try:
        positions = _CACHE.get(id(co))
        if positions is None:
            positions = _CACHE[id(co)] = list(co.co_positions())
        pos = positions[offset // 2] if offset // 2 < len(positions) else (None,)
        if pos[0] is not None:
            line, end_line, col, end_col = pos
    except BaseException:  # noqa: S110 - the position is a courtesy; the refusal is not
        pass
    lines = _CACHE.get("lines")
    if lines is None:
        lines = _CACHE["lines"] = _SOURCE.splitlines()

    def chars(n, k):
        if n is None or not 0 < n <= len(lines) or k is None:
            return 0
        return len(lines[n - 1].encode("utf-8")[:k].decode("utf-8", "replace"))

    end_line = end_line or line
    return {"code": code, "message": message, "line": line, "column": chars(line, col),
            "end_line": end_line, "end_column": chars(end_line, end_col)
            if end_col is not None else chars(line, col) + 1}
