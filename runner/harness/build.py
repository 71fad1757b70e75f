"""Compiling the harness bundle, BY the interpreter the sandbox will run: marshal's code format
is that interpreter's own. Parent side (nothing here runs in a sandbox), standard library only:
the running interpreter imports it (`harness.bundle()`), a pinned one runs it as a script
(`python -I -S -B build.py`, a marshal request on stdin, the answer on stdout; see `main`).

A request is (sources, validator, allowed, want): `sources` [(label, filename, bytes)] of every
file the bundle is made of (harness parts, facades, tracer, validator modules, the shipped
stdlib modules); `validator` {label: module name} of the validator's modules; `allowed` the
allowed modules the facades are bound to; `want` "parts" (compile, and the frame) or "frame"
(the frame of parts compiled earlier, `sources` then being those parts).
"""

import marshal

#: What the harness imports to re-validate: the validator, and its rule checks (which it
#: imports on its first validation). The roots of the eager execution order (`exec_order`).
VALIDATOR_ROOTS = ("stepsmith.runner.validator", "stepsmith.runner.validator.checks")

#: The harness parts, executed (definitions only) before inside.py's own body, in one
#: namespace: the harness is still one module and one code object, as if it were one file.
HARNESS_PARTS = ("encode.py", "restricted.py", "revalidate.py")


def _import_time_statements(body):
    """The import statements a module body runs when it is imported: not those inside
    functions (deferred imports) nor under `if TYPE_CHECKING:`."""
    import ast

    todo = list(reversed(body))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        elif isinstance(node, ast.If) and isinstance(node.test, ast.Name) \
                and node.test.id == "TYPE_CHECKING":
            todo.extend(reversed(node.orelse))
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                todo.extend(reversed(getattr(node, field, None) or []))


def _bundled_imports(name, is_pkg, tree, bundled):
    """The bundled modules `name` imports when it is imported, in execution order."""
    import ast

    package = name if is_pkg else name.rpartition(".")[0]
    out = []
    for node in _import_time_statements(tree.body):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            # `from pkg import sub` imports the submodule; `from mod import name` the module
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in bundled else base
                       for alias in node.names]
        for target in targets:
            if target in bundled and target != name and target not in out:
                out.append(target)
    return out


def exec_order(trees, roots=VALIDATOR_ROOTS):
    """The order in which importing `roots` makes Python execute the bundled modules
    (`trees`: name -> (is_package, AST)): each module after its parent package and after the
    modules its body imports, a cycle cut where Python would see a partially initialised
    module. The harness executes the modules in this order itself rather than through
    importlib (~20 µs a module); modules imported only later (inside functions, e.g. the
    rules catalogue on the first report) are still served on import. A package's own code
    runs after the submodules it imports have finished (as they finish in Python): a
    submodule that needed a name its package defines *before* importing it would fail, and
    the harness then refuses every step (SS003, fail closed; tests/sandbox would show it)."""
    bundled = set(trees)
    deps = {name: _bundled_imports(name, pkg, tree, bundled) for name, (pkg, tree) in
            trees.items()}
    order = []
    seen = set()

    def visit(name):
        if name in seen:
            return
        seen.add(name)
        parent = name.rpartition(".")[0]
        if parent in bundled:
            visit(parent)
        for dep in deps[name]:
            visit(dep)
        order.append(name)

    for root in roots:
        if root in bundled:
            visit(root)
    return order


def compile_facades(src, allowed):
    """facades.py with its `_ALLOWED = ()` bound to `allowed` (validator/policy.py's
    ALLOWED_MODULES, the one list; policy.py is part of the bundle's digest). Line numbers are
    kept."""
    import ast

    tree = ast.parse(src, "harness/facades.py")
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] \
                == ["_ALLOWED"]:
            node.value = ast.copy_location(ast.Constant(tuple(sorted(allowed))), node.value)
            break
    else:  # pragma: no cover - a refactor of facades.py must keep the binding
        raise RuntimeError("harness/facades.py has no `_ALLOWED = ...` binding to fill in")
    return compile(tree, "<stepsmith-facades>", "exec", dont_inherit=True, optimize=0)


def compile_harness(by_label):
    """inside.py with its parts, as one module: their statements in order, each keeping its
    own line numbers (the harness's frames are never shown to a step's author)."""
    import ast

    body = []
    for name in (*HARNESS_PARTS, "inside.py"):
        body += ast.parse(by_label[f"harness/{name}"], f"harness/{name}").body
    return compile(ast.Module(body=body, type_ignores=[]), "<stepsmith-harness>", "exec",
                   dont_inherit=True, optimize=0)


def compile_parts(sources, validator, allowed):
    """The marshalled code of the bundle's parts: {"main", "facades", "trace", "validator"}."""
    by_label = {label: src for label, _filename, src in sources}
    main = compile_harness(by_label)
    fac = compile_facades(by_label["harness/facades.py"], allowed)
    trace = compile(by_label["harness/tracer.py"], "<stepsmith-trace>", "exec",
                    dont_inherit=True, optimize=0)
    mods = {}
    trees = {}
    for label, filename, src in sources:
        if label in validator:
            name, is_pkg = validator[label], filename.endswith("__init__.py")
            code = compile(src, f"<stepsmith-validator:{label}>", "exec", dont_inherit=True)
            mods[name] = (is_pkg, marshal.dumps(code))
            trees[name] = (is_pkg, compile(src, label, "exec", 0x400, dont_inherit=True))
        elif label.startswith("stdlib/"):
            name = label[len("stdlib/"):-len(".py")]
            code = compile(src, filename, "exec", dont_inherit=True)
            mods[name] = (False, marshal.dumps(code))
            trees[name] = (False, compile(src, filename, "exec", 0x400, dont_inherit=True))
    has_validator = "stepsmith.runner.validator" in mods
    return {
        "main": marshal.dumps(main),
        "facades": marshal.dumps(fac),
        "trace": marshal.dumps(trace),  # sent only when a trace is asked for
        "validator": marshal.dumps((mods, exec_order(trees))) if has_validator else None,
    }


def shipped_validator(parts):
    """The validator as the harness frame carries it: (eager, lazy). `eager`: (name,
    is_package, code object) in `exec_order`, unmarshalled in the sandbox together with the
    frame (one unmarshal rather than one per module and a bytes copy of each, ~0.25 ms);
    `lazy`: name -> (is_package, marshalled code) of the rest (the rules catalogue), loaded
    only if imported."""
    if parts["validator"] is None:
        return None
    mods, order = marshal.loads(parts["validator"])
    eager = tuple((name, mods[name][0], marshal.loads(mods[name][1])) for name in order)
    return eager, {name: v for name, v in mods.items() if name not in set(order)}


def harness_frame(parts):
    """The bytes of the harness memfd (SPARE_BOOTSTRAP loads them): harness, facades,
    validator and trace code, as this interpreter marshals them."""
    return marshal.dumps((marshal.loads(parts["main"]), parts["facades"],
                          shipped_validator(parts), None, parts["trace"]))


def main():
    import sys

    sources, validator, allowed, want = marshal.loads(sys.stdin.buffer.read())
    if want == "parts":
        parts = compile_parts(sources, validator, allowed)
    else:
        parts = dict(sources)
    answer = {"parts": parts, "frame": harness_frame(parts)}
    sys.stdout.buffer.write(marshal.dumps(answer, 4))


if __name__ == "__main__":
    main()
