"""Start-up cost of the in-sandbox re-validation (issue 3: a trivial step through `run_step`
within 2x a bare interpreter start). The harness re-validates every step with the real
validator, so what that path imports is pinned here, in the real sandbox: an audit hook
prepended to the bootstrap logs every module the import system loads to a copy of the
sandbox's stderr (the harness points fds 1/2 at /dev/null, not that copy)."""

import marshal

import pytest
from stepsmith.runner import sandbox
from stepsmith.runner.harness import SHIPPED_STDLIB, bundle, exec_order
from stepsmith.runner.rules import all_rules
from stepsmith.runner.sandbox import Limits, cmdline, process
from stepsmith.runner.validator import StepUse, validate

HOOK = (
    "import sys,posix\n"
    "_log=posix.dup(2)\n"
    "def _hook(event,args,_w=posix.write,_fd=_log):\n"
    "    if event=='import':_w(_fd,('IMPORT '+args[0]+'\\n').encode())\n"
    "sys.addaudithook(_hook)\n"
    "del _hook\n"
)

#: What the validator costs at import (measured on 3.11, -S, over a bare start): each would
#: put milliseconds back on every step (`ast` ~7 ms, `dataclasses` ~20 ms with `inspect`,
#: `typing` ~10 ms, `re` ~5 ms, `enum`, `functools`/`collections`, ...).
HEAVY = {"ast", "dataclasses", "inspect", "typing", "enum", "re", "functools", "collections",
         "threading", "contextlib", "copy", "types", "operator", "keyword", "reprlib",
         "weakref", "importlib", "tokenize", "linecache", "dis", "string", "unicodedata"}

#: Everything the import system may load for a clean step: C modules only (the validator's
#: own modules, `__future__` and `warnings` arrive compiled on stdin and are executed
#: without the import system; `resource` is the harness's own, for the rlimits; `gc` the
#: bootstrap's, which loads the harness with the cycle collector off).
CLEAN_STEP_IMPORTS = {"_ast", "_functools", "resource", "gc"}


def _run_logged(monkeypatch, src, *, validate=True, uses=()):
    real_command, real_supervise = cmdline.command, process.supervise
    seen = {}

    def command(**kw):
        kw["bootstrap"] = HOOK + kw["bootstrap"]
        return real_command(**kw)

    def supervise(*a, **k):
        out = real_supervise(*a, **k)
        seen["stderr"] = out.stderr.decode()
        return out

    monkeypatch.setattr(cmdline, "command", command)
    monkeypatch.setattr(process, "supervise", supervise)
    res = sandbox._execute(src, "f", {}, filename="s.py", validate=validate, limits=Limits(),
                           uses=uses)
    imported = [line.split(" ", 1)[1] for line in seen["stderr"].splitlines()
                if line.startswith("IMPORT ")]
    return res, imported


def test_clean_step_revalidation_imports_only_builtin_modules(monkeypatch):
    res, imported = _run_logged(monkeypatch, "def f():\n    return 1\n")
    assert res.status == "ok" and res.output == 1
    assert set(imported) <= CLEAN_STEP_IMPORTS, (
        f"the in-sandbox validation path now imports {sorted(set(imported) - CLEAN_STEP_IMPORTS)}"
        ": every step pays for it (issue 3); keep the validator's imports built-in or ship them")
    assert "_ast" in imported  # the validator did run (it parses) ...


def test_refused_step_is_refused_by_the_harness_without_heavy_imports(monkeypatch):
    # ... and refuses inside the sandbox (the parent's validation is skipped on this path)
    res, imported = _run_logged(monkeypatch, "import os\ndef f():\n    return 1\n")
    assert res.status == "refused" and res.problems[0].code == "SS101"
    assert not set(imported) & HEAVY, sorted(set(imported) & HEAVY)


def test_without_revalidation_nothing_of_the_validator_is_imported(monkeypatch):
    res, imported = _run_logged(monkeypatch, "def f():\n    return 1\n", validate=False)
    assert res.status == "ok"
    assert not set(imported) & (HEAVY | {"stepsmith.runner.validator", "warnings"})


def test_eager_order_covers_the_validation_path_and_not_the_catalogue():
    mods, order = marshal.loads(bundle()["validator"])
    assert set(order) <= set(mods)
    assert "stepsmith.runner.validator" in order and "stepsmith.runner.validator.checks" in order
    assert "stepsmith.runner.rules.manifest_rules" not in order  # never needed in a sandbox
    for name in SHIPPED_STDLIB:
        assert name in mods
    # every module runs after its parent package's object exists and after what it imports
    # at import time; packages whose submodules ran first are completed afterwards
    pos = {name: i for i, name in enumerate(order)}
    assert pos["stepsmith.runner.problems"] < pos["stepsmith.runner.validator.engine"]
    assert pos["stepsmith.runner.validator.walk"] < pos["stepsmith.runner.validator.checks"]
    assert pos["__future__"] == 0


def test_exec_order_follows_import_statements():
    import ast

    trees = {
        "p": (True, ast.parse("from p import b\nX = b.Y\n")),
        "p.a": (False, ast.parse("import q\n")),
        "p.b": (False, ast.parse("from p.a import thing\ndef later():\n    import p.c\n")),
        "p.c": (False, ast.parse("")),
        "q": (False, ast.parse("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    import p.c\n")),
    }
    assert exec_order(trees, roots=("p",)) == ["q", "p.a", "p.b", "p"]


CORPUS = [(r.example, r.code) for r in all_rules() if r.code.startswith("SS1") or
          (r.code.startswith("SS") and not r.example.startswith("("))]
CORPUS += [(r.fix, r.code + "-fix") for r in all_rules()
           if r.code.startswith("SS") and r.fix and not r.fix.startswith("(")]
CORPUS += [("def f(x):\n    return x +\n", "syntax"), ("x = '\\d'\n", "warning"),
           ("def f():\n    return '{0.__class__}'.format(1)\n", "format")]


@pytest.mark.parametrize(("src", "label"), CORPUS, ids=[c[1] for c in CORPUS])
def test_the_sandbox_refuses_exactly_what_the_parent_validator_refuses(src, label):
    uses = [StepUse("s", "f", "public_egress")] if label == "SS105-fix" else []
    want = [(p.code, p.message, p.line, p.column, p.span.end_line, p.span.end_column, p.step)
            for p in validate(src, uses=uses)]
    res = sandbox._execute(src, "f", {}, filename="s.py", validate=True, limits=Limits(),
                           uses=[(u.step_id, u.function, u.network) for u in uses],
                           allow_urllib=bool(uses))
    got = [(p.code, p.message, p.line, p.column, p.span.end_line, p.span.end_column, p.step)
           for p in res.problems] if res.status == "refused" else []
    assert got == want, (label, res.status, res.message)


def test_the_corpus_exercises_refusals():
    assert sum(bool(validate(src)) for src, _ in CORPUS) >= 25


def test_harness_parts_hold_definitions_only_and_ship_as_one_module():
    import ast
    from pathlib import Path

    from stepsmith.runner import harness

    here = Path(harness.__file__).parent
    allowed = (ast.FunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign)
    for name in harness.HARNESS_PARTS:
        tree = ast.parse((here / name).read_text())
        body = tree.body[1:] if ast.get_docstring(tree) is not None else tree.body
        for node in body:  # nothing runs (no imports, no calls) before inside.py's own body
            assert isinstance(node, allowed), (name, node.lineno, ast.dump(node)[:80])
            if isinstance(node, ast.Assign):
                calls = [n for n in ast.walk(node.value) if isinstance(n, ast.Call)]
                assert all(isinstance(c.func, ast.Name) and c.func.id == "range"
                           for c in calls), (name, node.lineno)
        assert f"harness/{name}" in bundle()["files"]
    names = set(bundle()["main_code"].co_names)
    assert {"_revalidate", "_restricted_builtins", "_encode", "_main"} <= names
