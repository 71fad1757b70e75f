"""Imports live at module level. An import inside a function is kept only where waiting pays:
a heavy third-party seam (or the module of ours that carries it), the command dispatch, and
code that runs in a sandbox or a pinned interpreter's helper, whose start-up bench/sandbox.py
measures. What waiting buys the command line, bench/cli.py measures; the tables below say why
each seam is one, and an entry that allows nothing any more fails too."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOTS = {"stepsmith": "stepsmith", "runner": "stepsmith.runner", "server": "stepsmith.server"}

#: module (or package) imported inside a function -> why it may wait
SEAMS = {
    "pydantic": "the manifest model and the typed answers' schemas: ~100 ms, not on check's "
                "cache-hit path nor in --version/--help",
    "stepsmith.runner.manifest.model": "the pydantic model (re-reading an unchanged manifest's "
                                       "positions needs no pydantic)",
    "rich": "the terminal renderer (rich.syntax loads pygments): only output that is drawn",
    "stepsmith.runner.cli.console": "the rich console",
    "stepsmith.runner.cli.loopview": "rich renderings of fixture changes",
    "stepsmith.runner.cli.test_output": "rich renderings of a test run",
    "stepsmith.runner.mcp": "the MCP SDK (an optional extra, `stepsmith[mcp]`)",
    "watchfiles": "--watch only: a native extension with its own thread",
    "coverage": "coverage.py's parser, imported one thread at a time (its modules import one "
                "another: two threads meet a half-initialised module)",
    "pyseccomp": "libseccomp's native binding: only when a sandbox starts",
}

#: (file or folder, module prefix; "" for any) -> why that file may import it inside a function
SITES = {
    ("runner/cli/__init__.py", ""): "the command dispatch: a command line imports only the "
                                    "module of the command it names",
    ("runner/pytest_plugin.py", ""): "loaded in every pytest run (pytest11 entry point): "
                                     "imports the core only once --stepsmith collects workflows",
    ("runner/harness/", ""): "runs inside the sandbox (bench/sandbox.py: the floor)",
    ("runner/problems.py", ""): "shipped into the sandbox and to pinned interpreters' helpers",
    ("runner/rules/", ""): "shipped into the sandbox and to pinned interpreters' helpers",
    ("runner/validator/", ""): "shipped into the sandbox and to pinned interpreters' helpers",
    ("runner/pythons/helper.py", ""): "runs in a pinned interpreter (`python -I -S`)",
    ("runner/app/check.py", ""): "check's cache-hit path: an unchanged workflow is answered "
                                 "without yaml, the validator, the fixtures or git (bench/cli.py: "
                                 "check, 200 workflows, one file changed)",
    ("runner/app/check_units.py", ""): "check's cache-hit path (see runner/app/check.py)",
    ("runner/app/check_cache.py", ""): "check's cache-hit path (see runner/app/check.py)",
    ("runner/cli/check_command.py", ""): "check's cache-hit path (see runner/app/check.py)",
    ("runner/cli/check_formats.py", ""): "check's cache-hit path (see runner/app/check.py)",
    ("runner/app/cases.py", ""): "`stepsmith test`'s books after the run (pending changes and "
                                 "the store, the fixture loop, coverage) load in the background "
                                 "while the sandboxes run (bench/cli.py: test start-up)",
    ("server/", "stepsmith."): "the language server answers `initialize` before it loads the "
                               "core (bench/lsp.py: start-up <= 1.2x a bare pygls server)",
    ("runner/workspace/snapshot.py", "stepsmith."): "the language server's start (see server/)",
    ("runner/workspace/diagnostics.py", "stepsmith."): "the language server's start (see "
                                                       "server/)",
    ("runner/workspace/index.py", "stepsmith."): "the language server's start (see server/)",
    ("runner/sandbox/__init__.py", "stepsmith.runner.sandbox."): "`stepsmith check` imports the "
        "package for its boundary types (fixtures/load.py); what starts a sandbox (bwrap's "
        "command line, the supervisor, seccomp: ctypes, ~50 ms) loads when one starts "
        "(bench/cli.py: check examples/)",
    ("runner/sandbox/prepared.py", "stepsmith.runner.sandbox."): "what starts a sandbox (see "
                                                                 "runner/sandbox/__init__.py)",
}

def module_name(rel: str) -> str:
    top, _, rest = rel.partition("/")
    parts = [ROOTS[top], *rest.removesuffix(".py").split("/")]
    return ".".join(parts).removesuffix(".__init__")


def targets(node: ast.Import | ast.ImportFrom, module: str, package: bool) -> list[str]:
    """The absolute module names an import statement names."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if not node.level:
        return [node.module or ""]
    parts = module.split(".") if package else module.split(".")[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return [".".join(parts + ([node.module] if node.module else []))]


def inner_imports(source: str, rel: str) -> list[tuple[int, str]]:
    """(line, module) of every import inside a function of `source` (file `rel`)."""
    module = module_name(rel)
    package = rel.endswith("__init__.py")
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                found.extend((child.lineno, t) for t in targets(child, module, package))
            visit(child, in_function
                  or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(ast.parse(source), False)
    return found


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def in_site(rel: str, site: str) -> bool:
    return rel == site or (site.endswith("/") and rel.startswith(site))


def allowed_by(rel: str, target: str) -> object:
    """The table entry that lets `rel` import `target` inside a function, or None."""
    for site, modules in SITES:
        if in_site(rel, site) and (not modules or within(target, modules.rstrip("."))):
            return (site, modules)
    for prefix in SEAMS:
        if within(target, prefix):
            return prefix
    return None


def sources() -> dict[str, str]:
    out = {}
    for top in ROOTS:
        for path in sorted((REPO / top).rglob("*.py")):
            out[path.relative_to(REPO).as_posix()] = path.read_text(encoding="utf-8")
    return out


def violations(files: dict[str, str]) -> tuple[list[str], set[object]]:
    bad: list[str] = []
    used: set[object] = set()
    for rel, text in files.items():
        for line, target in inner_imports(text, rel):
            entry = allowed_by(rel, target)
            if entry is None:
                bad.append(f"{rel}:{line}: imports {target} inside a function")
            else:
                used.add(entry)
    return bad, used


def test_imports_inside_functions_are_only_at_the_seams():
    files = sources()
    assert len(files) > 300 and "runner/cli/__init__.py" in files
    bad, used = violations(files)
    assert bad == []
    # every entry still allows something: a seam that is gone leaves the table
    assert set(SEAMS) | set(SITES) == used


def test_a_planted_inner_import_is_found():
    files = sources()
    rel = "runner/settings.py"
    files[rel] += "\n\ndef _planted():\n    import json\n\n    return json\n"
    bad, _ = violations(files)
    assert len(bad) == 1 and bad[0].startswith(f"{rel}:") and bad[0].endswith(
        "imports json inside a function")
    # a relative import is read as the module it names
    files = sources()
    rel = "runner/app/fixture_loop.py"
    files[rel] += "\n\ndef _planted():\n    from .pending import sync\n\n    return sync\n"
    line = files[rel].splitlines().index("    from .pending import sync") + 1
    assert violations(files)[0] == [
        f"{rel}:{line}: imports stepsmith.runner.app.pending inside a function"]
