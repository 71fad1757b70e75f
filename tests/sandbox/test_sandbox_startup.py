"""Start-up cost of the in-sandbox code check (issue 3: a trivial step through `run_step`
within 2x a bare interpreter start; issue 32: the fresh sandbox's floor). The harness checks
every step's compiled code (codecheck.py) without importing anything, so what that path
imports is pinned here, in the real sandbox: an audit hook prepended to the bootstrap logs
every module the import system loads to a copy of the sandbox's stderr (the harness points
fds 1/2 at /dev/null, not that copy)."""

import pytest
from stepsmith.runner import sandbox
from stepsmith.runner.harness import bundle
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

#: What a module costs at import (measured on 3.11, -S, over a bare start): each would put
#: milliseconds back on every step (`ast` ~7 ms, `dataclasses` ~20 ms with `inspect`,
#: `typing` ~10 ms, `re` ~5 ms, `enum`, `functools`/`collections`, ...).
HEAVY = {"ast", "dataclasses", "inspect", "typing", "enum", "re", "functools", "collections",
         "threading", "contextlib", "copy", "types", "operator", "keyword", "reprlib",
         "weakref", "importlib", "tokenize", "linecache", "dis", "string", "unicodedata"}

#: Everything the import system may load for a clean step: C modules only (`resource` is the
#: harness's own, for the rlimits; `gc` the bootstrap's, which loads the harness with the
#: cycle collector off). No validator module and no `_ast`: the check reads code objects.
CLEAN_STEP_IMPORTS = {"resource", "gc"}


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


def test_clean_step_check_imports_only_builtin_modules(monkeypatch):
    res, imported = _run_logged(monkeypatch, "def f():\n    return 1\n")
    assert res.status == "ok" and res.output == 1
    assert set(imported) <= CLEAN_STEP_IMPORTS, (
        f"the in-sandbox check now imports {sorted(set(imported) - CLEAN_STEP_IMPORTS)}"
        ": every step pays for it (issue 3)")


def test_refused_step_is_refused_by_the_harness_without_heavy_imports(monkeypatch):
    # refused inside the sandbox (the parent's validation is skipped on this path)
    res, imported = _run_logged(monkeypatch, "import os\ndef f():\n    return 1\n")
    assert res.status == "refused" and res.problems[0].code == "SS101"
    assert not set(imported) & HEAVY, sorted(set(imported) & HEAVY)
    assert "os" not in imported  # refused before anything executes


def test_format_check_imports_only_the_builtin_format_parser(monkeypatch):
    res, imported = _run_logged(monkeypatch, "def f():\n    return '{0.real}'.format(1)\n")
    assert res.status == "ok" and res.output == "1"
    assert set(imported) <= CLEAN_STEP_IMPORTS | {"_string"}, imported


CORPUS = [(r.example, r.code) for r in all_rules() if r.code.startswith("SS1") or
          (r.code.startswith("SS") and not r.example.startswith("("))]
CORPUS += [(r.fix, r.code + "-fix") for r in all_rules()
           if r.code.startswith("SS") and r.fix and not r.fix.startswith("(")]
CORPUS += [("def f(x):\n    return x +\n", "syntax"), ("x = '\\d'\n", "warning"),
           ("def f():\n    return '{0.__class__}'.format(1)\n", "format")]


#: The rules the in-sandbox code check enforces itself (codecheck.py says why the others are
#: left to the run time's restrictions and to the parent's validator).
CHECKED = {"SS001", "SS101", "SS102", "SS103", "SS105", "SS201", "SS202", "SS205", "SS206",
           "SS301", "SS303", "SS304", "SS305", "SS401", "SS402", "SS403"}


@pytest.mark.parametrize(("src", "label"), CORPUS, ids=[c[1] for c in CORPUS])
def test_the_sandbox_refuses_what_the_parent_refuses_for_a_way_out(src, label):
    """Never stricter than the parent's validator, and every refusal of a rule the check
    enforces is made inside the sandbox too (by the same rule, or at the same line: `global x`
    is refused where the code stores to `x`)."""
    uses = [StepUse("s", "f", "public_egress")] if label == "SS105-fix" else []
    want = [(p.code, p.line) for p in validate(src, uses=uses)
            if p.severity.value == "error"]
    res = sandbox._execute(src, "f", {}, filename="s.py", validate=True, limits=Limits(),
                           uses=[(u.step_id, u.function, u.network) for u in uses],
                           allow_urllib=bool(uses))
    got = [(p.code, p.line) for p in res.problems] if res.status == "refused" else []
    assert not got or want, (label, "refused inside the sandbox, accepted by the validator",
                             got)
    checked = [w for w in want if w[0] in CHECKED]
    if checked:
        assert res.status == "refused", (label, res.status, res.message)
        assert set(checked) & set(got) or {c for c, _ in checked} & {c for c, _ in got} \
            or {n for _, n in checked} & {n for _, n in got}, (label, got, want)


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
    assert {"_check_code", "_restricted_builtins", "_encode", "_main"} <= names
