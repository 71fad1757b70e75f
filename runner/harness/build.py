"""Compiling the harness bundle, BY the interpreter the sandbox will run: marshal's code format
is that interpreter's own, and so is its bytecode, which the in-sandbox check reads
(`code_table`). Parent side (nothing here runs in a sandbox), standard library only: the
running interpreter imports it (`harness.bundle()`), a pinned one runs it as a script
(`python -I -S -B build.py`, a marshal request on stdin, the answer on stdout; see `main`).

A request is (sources, policy, allowed, want): `sources` [(label, filename, bytes)] of every
file the bundle is made of (harness parts, facades, tracer); `policy` the dialect's names the
code check refuses (validator/policy.py, as `harness._policy()` gives them); `allowed` the
allowed modules the facades are bound to; `want` "parts" (compile, and the frame) or "frame"
(the frame of parts compiled earlier, `sources` then being those parts).
"""

import marshal

#: The harness parts, executed (definitions only) before inside.py's own body, in one
#: namespace: the harness is still one module and one code object, as if it were one file.
HARNESS_PARTS = ("encode.py", "restricted.py", "codecheck.py")

#: Code using every construct whose instruction names something (co_names), each name used
#: after four fillers so that its index tells how the opcode's argument encodes it
#: (`code_table`). Compiled, never run.
_PROBE = """
import aa0
import aa1.bb1
from aa2 import bb2
from . import bb3
nn4 = 1
del nn4
nn5
def f(x):
    z0, z1, z2, z3
    global gg6
    gg6 = 1
    del gg6
    x.aa7
    x.aa8 = 1
    del x.aa9
    x.aa10()
    gg11
    match x:
        case C(aa12=1):
            pass
class K:
    z0, z1, z2, z3
    def m(self):
        z0, z1, z2, z3
        return super().aa13, super().aa14()
"""


def code_table(policy):
    """What the in-sandbox check (codecheck.py) needs to read THIS interpreter's bytecode:
    for every opcode whose argument indexes co_names, its kind ("attr", "global", "import",
    "store_global", or "unknown": refused wherever it appears) and how its argument encodes
    the index (a right shift, found by compiling `_PROBE`: -1 if never seen), the opcodes of
    constants, EXTENDED_ARG, CACHE, LOAD_BUILD_CLASS and MATCH_CLASS, the async code flags;
    with `policy` merged in."""
    import dis

    names = {}
    todo = [compile(_PROBE, "<probe>", "exec", dont_inherit=True)]
    while todo:
        co = todo.pop()
        todo.extend(c for c in co.co_consts if hasattr(c, "co_code"))
        for ins in dis.get_instructions(co):
            if ins.opcode in dis.hasname and isinstance(ins.argval, str) \
                    and ins.argval in co.co_names and ins.arg is not None:
                index = co.co_names.index(ins.argval)
                fits = {s for s in (0, 1, 2) if ins.arg >> s == index}
                names.setdefault(ins.opcode, fits)
                names[ins.opcode] &= fits
    kinds = {}
    for op in dis.hasname:
        opname = dis.opname[op]
        shifts = names.get(op, set())
        shift = min(shifts) if len(shifts) == 1 else -1
        if opname == "IMPORT_NAME":
            kind = "import"
        elif opname == "IMPORT_FROM" or "ATTR" in opname or "METHOD" in opname:
            kind = "attr"
        elif "GLOBAL" in opname and opname.startswith(("STORE", "DELETE")):
            kind = "store_global"
        elif "GLOBAL" in opname or opname.endswith("_NAME"):
            kind = "global"
        else:
            kind = "unknown"
        kinds[op] = (kind if shift >= 0 else "unknown", shift)
    flags = {name: flag for flag, name in dis.COMPILER_FLAG_NAMES.items()}
    return {
        **policy,
        "names": kinds,
        "consts": frozenset(dis.hasconst),
        "extended_arg": dis.opmap["EXTENDED_ARG"],
        "cache": dis.opmap.get("CACHE", -1),
        "build_class": dis.opmap.get("LOAD_BUILD_CLASS", -1),
        "match_class": dis.opmap.get("MATCH_CLASS", -1),
        "small_int": dis.opmap.get("LOAD_SMALL_INT", -1),  # 3.14: `from x import y`'s level
        "async_flags": flags["COROUTINE"] | flags["ITERABLE_COROUTINE"]
        | flags["ASYNC_GENERATOR"],
    }


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


def compile_parts(sources, policy, allowed):
    """The marshalled parts of the bundle: {"main", "facades", "trace", "check"}."""
    by_label = {label: src for label, _filename, src in sources}
    main = compile_harness(by_label)
    fac = compile_facades(by_label["harness/facades.py"], allowed)
    trace = compile(by_label["harness/tracer.py"], "<stepsmith-trace>", "exec",
                    dont_inherit=True, optimize=0)
    return {
        "main": marshal.dumps(main),
        "facades": marshal.dumps(fac),
        "trace": marshal.dumps(trace),  # sent only when a trace is asked for
        "check": marshal.dumps(code_table(policy)),
    }


def harness_frame(parts):
    """The bytes of the harness memfd (SPARE_BOOTSTRAP loads them): harness, facades, the
    code check's table and trace code, as this interpreter marshals them."""
    return marshal.dumps((marshal.loads(parts["main"]), parts["facades"],
                          marshal.loads(parts["check"]), None, parts["trace"]))


def main():
    import sys

    sources, policy, allowed, want = marshal.loads(sys.stdin.buffer.read())
    if want == "parts":
        parts = compile_parts(sources, policy, allowed)
    else:
        parts = dict(sources)
    answer = {"parts": parts, "frame": harness_frame(parts)}
    sys.stdout.buffer.write(marshal.dumps(answer, 4))


if __name__ == "__main__":
    main()
