"""The in-sandbox harness, as the parent ships it.

The files next to this one (`inside.py`, `facades.py`) run INSIDE the sandbox. They are never
imported by the runner: `bundle()` compiles them once per process (and the validator's modules
too: the harness re-validates every step before executing it) and caches the marshalled code
objects; the sandbox's interpreter is the very binary the runner runs on, so marshal's format
matches. The constant `BOOTSTRAP` is the only code on the sandbox's command line; everything
else arrives on stdin.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
import threading
from pathlib import Path

HARNESS_VERSION = "1"

BOOTSTRAP = (
    "import sys,marshal\n"
    "c,*a=marshal.loads(sys.stdin.buffer.read())\n"
    "exec(c,{'__name__':'__stepsmith_harness__','ARGS':a})\n"
)

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


#: The module the harness imports to re-validate (the roots of the eager execution order).
VALIDATOR_ROOTS = ("stepsmith.runner.validator",)


def _bundled_imports(name: str, is_pkg: bool, tree, bundled) -> list[str]:
    """The bundled modules `name`'s code imports, in source order: top-level imports and the
    deferred ones inside functions alike (the validator imports its checks on first use)."""
    import ast

    package = name if is_pkg else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            # `from pkg import sub` imports the submodule; `from mod import name` the module
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in bundled else base
                       for alias in node.names]
        else:
            continue
        found += [(node.lineno, node.col_offset, i, t) for i, t in enumerate(targets)
                  if t in bundled and t != name]
    out: list[str] = []
    for *_, target in sorted(found):
        if target not in out:
            out.append(target)
    return out


def exec_order(trees: dict[str, tuple[bool, object]], roots=VALIDATOR_ROOTS) -> list[str]:
    """The order in which Python's import system would finish executing the bundled modules
    reachable from `roots` (dependencies first, a package before its submodules, cycles cut
    where Python would see a partially initialised module). The harness executes the modules
    in this order itself instead of going through importlib for each (~20 µs a module)."""
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


def bundle() -> dict:
    """Compiled harness, facades and validator, cached per process.

    Returns {"main": bytes, "facades": bytes, "validator": bytes | None, "sha256": str,
    "files": [...]}; "sha256" covers the source of everything that runs inside the sandbox.
    "validator" is marshal of ({module name: (is_package, code)}, execution order).
    """
    global _cache
    with _lock:
        if _cache is not None:
            return _cache
        digest = hashlib.sha256()
        files = []

        def load(path: Path, label: str):
            src = path.read_bytes()
            digest.update(label.encode() + b"\0" + src + b"\0")
            files.append(label)
            return src

        main = compile(load(_HERE / "inside.py", "harness/inside.py"),
                       "<stepsmith-harness>", "exec", dont_inherit=True, optimize=0)
        fac = compile(load(_HERE / "facades.py", "harness/facades.py"),
                      "<stepsmith-facades>", "exec", dont_inherit=True, optimize=0)
        mods = {}
        trees = {}
        for name, path in _validator_files():
            rel = str(path.relative_to(_RUNNER))
            src = load(path, rel)
            is_pkg = path.name == "__init__.py"
            code = compile(src, f"<stepsmith-validator:{rel}>", "exec", dont_inherit=True)
            mods[name] = (is_pkg, code)
            trees[name] = (is_pkg, compile(src, rel, "exec", 0x400, dont_inherit=True))
        has_validator = "stepsmith.runner.validator" in mods
        order = exec_order(trees)
        _cache = {
            "main": marshal.dumps(main),
            "main_code": main,
            "facades": marshal.dumps(fac),
            "validator": marshal.dumps((mods, order)) if has_validator else None,
            "sha256": digest.hexdigest(),
            "files": files,
        }
        return _cache


def reset_cache() -> None:
    """Forget the compiled bundle (tests; a long-lived server after an upgrade)."""
    global _cache
    with _lock:
        _cache = None


def source_sha256() -> str:
    return bundle()["sha256"]


def python_version() -> str:
    return ".".join(str(n) for n in sys.version_info[:3])
