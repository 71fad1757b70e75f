"""The in-sandbox harness, as the parent ships it.

The files next to this one (`inside.py`, `facades.py`, `tracer.py`) run INSIDE the sandbox. They are never
imported by the runner: `bundle()` compiles them once per process (and the validator's modules
too: the harness re-validates every step before executing it) and caches the marshalled code
objects; the sandbox's interpreter is the very binary the runner runs on, so marshal's format
matches. The constant `BOOTSTRAP` is the only code on the sandbox's command line; everything
else arrives on stdin.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import threading
from pathlib import Path

HARNESS_VERSION = "1"

BOOTSTRAP = (
    "import sys,marshal\n"
    "c,*a=marshal.loads(sys.stdin.buffer.read())\n"
    "exec(c,{'__name__':'__stepsmith_harness__','ARGS':a})\n"
)

#: The bootstrap of every validated run. The harness frame (harness, facades, validator and
#: trace code: ~290 KB) is read from a sealed memfd the parent creates once per process and
#: passes to every sandbox, its fd number the bootstrap's one argument (`harness_fd`): no
#: pipe copy of it per sandbox (~0.6 ms); the fd is closed before the harness runs. Stdin
#: carries the request alone: a frame (8-byte big-endian length, then marshal data), read by
#: the harness (`_take_request`). Both are read into buffers of their exact size (no
#: read-ahead, and the same allocations however the bytes arrive). A spare
#: (sandbox/spares.py) loads the harness when it starts and gets its request when taken.
SPARE_BOOTSTRAP = (
    "import marshal,posix,sys\n"
    "def rd(n,f=0):\n"
    " b=bytearray(n);v=memoryview(b);o=0\n"
    " while o<n:\n"
    "  k=posix.preadv(f,[v[o:]],o) if f else posix.readv(0,[v[o:]])\n"
    "  if not k:raise EOFError\n"
    "  o+=k\n"
    " v.release()\n"
    " return b\n"
    "f=int(sys.argv[1])\n"
    "c,*a=marshal.loads(rd(posix.fstat(f).st_size,f))\n"
    "posix.close(f)\n"
    "exec(c,{'__name__':'__stepsmith_harness__','ARGS':a,'READ':rd})\n"
)


def frame(obj) -> bytes:
    """One length-prefixed marshal frame of a SPARE_BOOTSTRAP stdin."""
    data = marshal.dumps(obj)
    return len(data).to_bytes(8, "big") + data


def harness_fd() -> int:
    """The sealed memfd holding the harness frame (harness, facades, validator and trace
    code), created once per bundle: SPARE_BOOTSTRAP's argument, passed to every validated
    sandbox. Sealed against writes, growing and shrinking, so no sandbox can change what the
    next one loads; read with pread (the shared file offset does not matter). Close-on-exec
    here: only the sandboxes it is passed to inherit it."""
    b = bundle()
    with _lock:
        if "fd" not in b:
            import fcntl

            data = marshal.dumps((b["main_code"], b["facades"], shipped_validator(b), None,
                                  b["trace"]))
            fd = os.memfd_create("stepsmith-harness", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK
                        | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
            b["fd"] = fd
        return b["fd"]


def shipped_validator(b: dict) -> tuple | None:
    """The validator as the harness frame carries it: (eager, lazy). `eager`: (name,
    is_package, code object) in `exec_order`, unmarshalled in the sandbox together with the
    frame (one unmarshal rather than one per module and a bytes copy of each, ~0.25 ms);
    `lazy`: name -> (is_package, marshalled code) of the rest (the rules catalogue), loaded
    only if imported."""
    if b["validator"] is None:
        return None
    mods, order = marshal.loads(b["validator"])
    eager = tuple((name, mods[name][0], marshal.loads(mods[name][1])) for name in order)
    return eager, {name: v for name, v in mods.items() if name not in set(order)}


_HERE = Path(__file__).resolve().parent
_RUNNER = _HERE.parent
_lock = threading.Lock()
_cache: dict | None = None


def _validator_files() -> list[tuple[str, Path]]:
    """(module name, path) for the validator and the runner modules it is built on."""
    out: list[tuple[str, Path]] = []
    problems = _RUNNER / "problems.py"
    if problems.is_file():
        out.append(("stepsmith.runner.problems", problems))
    for pkg in ("rules", "validator"):
        root = _RUNNER / pkg
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(_RUNNER).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out.append((".".join(["stepsmith", "runner", *parts]), path))
    return out


#: What the harness imports to re-validate: the validator, and its rule checks (which it
#: imports on its first validation). The roots of the eager execution order (`exec_order`).
VALIDATOR_ROOTS = ("stepsmith.runner.validator", "stepsmith.runner.validator.checks")


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


def _bundled_imports(name: str, is_pkg: bool, tree, bundled) -> list[str]:
    """The bundled modules `name` imports when it is imported, in execution order."""
    import ast

    package = name if is_pkg else name.rpartition(".")[0]
    out: list[str] = []
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


def exec_order(trees: dict[str, tuple[bool, object]], roots=VALIDATOR_ROOTS) -> list[str]:
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
    order: list[str] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
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


#: Pure-Python standard-library modules the validator imports that `python -S` has not loaded
#: (`__future__` for `from __future__ import annotations`, `warnings` for the parser's
#: warnings). Shipped compiled from this interpreter's own stdlib files (the sandbox runs the
#: very same interpreter and stdlib), which saves the import system's file lookups and reads
#: (~0.25 ms a sandbox). Anything else the sandbox imports comes from its read-only stdlib.
SHIPPED_STDLIB = ("__future__", "warnings")


def _stdlib_files() -> list[tuple[str, Path]]:
    import sysconfig

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    out = []
    for name in SHIPPED_STDLIB:
        path = stdlib / f"{name}.py"
        if path.is_file():
            out.append((name, path))
    return out


def _compile_facades(src: bytes):
    """facades.py with its `_ALLOWED = ()` bound to validator/policy.py's ALLOWED_MODULES, the
    one list (policy.py is part of the bundle's digest). Line numbers are kept."""
    import ast

    from stepsmith.runner.validator.policy import ALLOWED_MODULES

    tree = ast.parse(src, "harness/facades.py")
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] \
                == ["_ALLOWED"]:
            node.value = ast.copy_location(ast.Constant(tuple(sorted(ALLOWED_MODULES))),
                                           node.value)
            break
    else:  # pragma: no cover - a refactor of facades.py must keep the binding
        raise RuntimeError("harness/facades.py has no `_ALLOWED = ...` binding to fill in")
    return compile(tree, "<stepsmith-facades>", "exec", dont_inherit=True, optimize=0)


#: The harness parts, executed (definitions only) before inside.py's own body, in one
#: namespace: the harness is still one module and one code object, as if it were one file.
HARNESS_PARTS = ("encode.py", "restricted.py", "revalidate.py")


def _compile_harness(load):
    """inside.py with its parts, as one module: their statements in order, each keeping its
    own line numbers (the harness's frames are never shown to a step's author)."""
    import ast

    body = []
    for name in (*HARNESS_PARTS, "inside.py"):
        body += ast.parse(load(_HERE / name, f"harness/{name}"), f"harness/{name}").body
    return compile(ast.Module(body=body, type_ignores=[]), "<stepsmith-harness>", "exec",
                   dont_inherit=True, optimize=0)


def _sources() -> list[tuple[str, Path, bytes]]:
    """(label, path, bytes) of every file the bundle is built from, in the digest's order."""
    out: list[tuple[str, Path, bytes]] = []

    def add(path: Path, label: str) -> None:
        out.append((label, path, path.read_bytes()))

    for name in (*HARNESS_PARTS, "inside.py"):
        add(_HERE / name, f"harness/{name}")
    # this file too: its bootstraps run in the sandbox and it binds the parts together
    add(_HERE / "__init__.py", "harness/__init__.py")
    add(_HERE / "facades.py", "harness/facades.py")
    add(_HERE / "tracer.py", "harness/tracer.py")
    validator = _validator_files()
    for _name, path in validator:
        add(path, str(path.relative_to(_RUNNER)))
    if validator:
        for name, path in _stdlib_files():
            add(path, f"stdlib/{name}.py")
    return out


def _compile_parts(sources: list[tuple[str, Path, bytes]]) -> dict:
    """The marshalled code of the bundle's parts, compiled from `sources`."""
    from stepsmith.runner.validator.astlock import AST_LOCK

    with AST_LOCK:  # trees are built and compiled here (validator/astlock.py)
        return _compile_locked(sources)


def _compile_locked(sources: list[tuple[str, Path, bytes]]) -> dict:
    by_label = {label: src for label, _path, src in sources}
    main = _compile_harness(lambda path, label: by_label[label])
    fac = _compile_facades(by_label["harness/facades.py"])
    trace = compile(by_label["harness/tracer.py"], "<stepsmith-trace>", "exec",
                    dont_inherit=True, optimize=0)
    mods = {}
    trees = {}
    names = {str(path.relative_to(_RUNNER)): name for name, path in _validator_files()}
    for label, path, src in sources:
        if label in names:
            name, is_pkg = names[label], path.name == "__init__.py"
            code = compile(src, f"<stepsmith-validator:{label}>", "exec", dont_inherit=True)
            mods[name] = (is_pkg, marshal.dumps(code))
            trees[name] = (is_pkg, compile(src, label, "exec", 0x400, dont_inherit=True))
        elif label.startswith("stdlib/"):
            name = label[len("stdlib/"):-len(".py")]
            code = compile(src, str(path), "exec", dont_inherit=True)
            mods[name] = (False, marshal.dumps(code))
            trees[name] = (False, compile(src, str(path), "exec", 0x400, dont_inherit=True))
    has_validator = "stepsmith.runner.validator" in mods
    return {
        "main": marshal.dumps(main),
        "facades": marshal.dumps(fac),
        "trace": marshal.dumps(trace),  # sent only when a trace is asked for
        "validator": marshal.dumps((mods, exec_order(trees))) if has_validator else None,
    }


def bundle() -> dict:
    """Compiled harness, facades and validator, cached per process, and compiled once per
    source version: the compiled parts are kept in the user's cache folder under the digest
    of their sources (bundle_cache.py; compiling is most of a test run's start-up).

    Returns {"main": bytes, "facades": bytes, "trace": bytes, "validator": bytes | None,
    "sha256": str,
    "files": [...]}; "sha256" covers the source of everything that runs inside the sandbox.
    "validator" is marshal of ({module name: (is_package, marshalled code)}, `exec_order`):
    each module's code is unmarshalled only if the sandbox imports it.
    """
    global _cache
    with _lock:
        if _cache is not None:
            return _cache
        from . import bundle_cache

        sources = _sources()
        digest = hashlib.sha256()
        for label, _path, src in sources:
            digest.update(label.encode() + b"\0" + src + b"\0")
        sha = digest.hexdigest()
        # the facades are compiled with the allowed modules this process imported, which
        # need not be what policy.py says now (edited under a running server)
        from stepsmith.runner.validator.policy import ALLOWED_MODULES

        inputs = f"{sha}\0{sorted(ALLOWED_MODULES)}"
        parts = bundle_cache.load(inputs)
        if parts is None:
            parts = _compile_parts(sources)
            bundle_cache.store(inputs, parts)
        _cache = {**parts, "main_code": marshal.loads(parts["main"]), "sha256": sha,
                  "files": [label for label, _path, _src in sources]}
        return _cache


def reset_cache() -> None:
    """Forget the compiled bundle (tests; a long-lived server after an upgrade). Its memfd
    stays open: a start running concurrently may be passing its number on, and a number
    freed here could meanwhile name another file of the runner."""
    global _cache
    with _lock:
        _cache = None


def source_sha256() -> str:
    return bundle()["sha256"]


def python_version() -> str:
    return ".".join(str(n) for n in sys.version_info[:3])
