"""The check helper: runs IN a pinned interpreter (`python -I -S -B helper.py`), never imported
by the runner. It parses and validates step code with that interpreter's own grammar and
modules for a stepsmith running on another one (pythons/checker.py starts one per interpreter
and keeps it).

Protocol on stdin/stdout: frames of an 8-byte big-endian length and `marshal` data (format 4,
plain values only, readable by every Python 3 from 3.11 on). The first frame is the module
sources: [(module name, is_package, label, source bytes)], the validator and the modules it
imports (pure: runner/problems, rules, validator, pyparse, codeshape),
compiled here by this interpreter, and {package: folder} of pure-Python packages imported from
their folders (coverage.py's parser). Then each request is a tuple and gets one answer:
  ("validate", source, python, uses, line_offset) -> ("ok", [problem tuples])
  ("layout", source)                              -> ("ok", (line_map, assigns, line_count))
                                                    | ("syntax", message)
  ("analyse", source)                             -> ("ok", codeshape.shape_data)
                                                    | ("syntax", message)
  ("compile", source, filename)                   -> ("ok", None) | ("syntax", (msg, line))
Anything unexpected answers ("error", text); the parent fails closed on it.
Standard library only, and nothing here executes step code: it is parsed, never run.
"""

import marshal
import sys

_VERSION = 4


def _read(n):
    buf = b""
    while len(buf) < n:
        chunk = sys.stdin.buffer.read(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def _receive():
    return marshal.loads(_read(int.from_bytes(_read(8), "big")))


def _send(obj):
    data = marshal.dumps(obj, _VERSION)
    sys.stdout.buffer.write(len(data).to_bytes(8, "big") + data)
    sys.stdout.buffer.flush()


def _install(sources, packages):
    import importlib.abc
    import importlib.util

    table = {name: (is_pkg, label, src) for name, is_pkg, label, src in sources}
    for name, folder in packages.items():
        # the package itself without its __init__ (coverage's imports its C tracer and the
        # whole measurement machinery); its modules are found in its folder as usual
        module = type(sys)(name)
        module.__path__ = [folder]
        module.__package__ = name
        sys.modules[name] = module

    class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path=None, target=None):
            if name in table:
                return importlib.util.spec_from_loader(name, self, is_package=table[name][0])
            if name in ("stepsmith", "stepsmith.runner", "stepsmith.runner.coverage"):
                return importlib.util.spec_from_loader(name, self, is_package=True)
            return None

        def create_module(self, spec):
            return None

        def exec_module(self, module):
            entry = table.get(module.__name__)
            if entry is not None:
                code = compile(entry[2], entry[1], "exec", dont_inherit=True)
                exec(code, module.__dict__)  # noqa: S102 - our own modules, served as files are

    sys.meta_path.insert(0, Finder())


def _problem(p):
    sp = p.span
    sev = getattr(p.severity, "value", str(p.severity))
    return (p.code, p.message, (sp.line, sp.column, sp.end_line, sp.end_column), p.path,
            p.step, p.rationale, sev, _plain(dict(p.data)))


def _plain(value):
    """Data that marshal carries and the parent rebuilds as it was (tuples stay tuples)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _answer(request):
    kind = request[0]
    if kind == "validate":
        from stepsmith.runner.validator import StepUse, validate

        _, source, python, uses, line_offset = request
        found = validate(source, python=python, uses=[StepUse(*u) for u in uses],
                         line_offset=line_offset)
        return ("ok", [_problem(p) for p in found])
    if kind == "layout":
        from stepsmith.runner.codeshape import layout

        try:
            shape = layout(request[1])
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            return ("syntax", f"{type(exc).__name__}: {exc}")
        return ("ok", (dict(shape.line_map), {k: list(v) for k, v in shape.assigns.items()},
                       shape.line_count))
    if kind == "analyse":
        from stepsmith.runner.codeshape import shape_data

        try:
            return ("ok", shape_data(request[1]))
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            return ("syntax", f"{type(exc).__name__}: {exc}")
    if kind == "compile":
        try:
            compile(request[1], request[2], "exec", dont_inherit=True)
        except SyntaxError as exc:
            return ("syntax", (str(exc.msg), exc.lineno or 0))
        except (ValueError, RecursionError, MemoryError) as exc:
            return ("syntax", (f"{type(exc).__name__}: {exc}", 0))
        return ("ok", None)
    return ("error", f"unknown request {kind!r}")


def main():
    _install(*_receive())
    while True:
        try:
            request = _receive()
        except EOFError:
            return
        try:
            reply = _answer(request)
        except BaseException as exc:  # noqa: BLE001 - answered; the parent fails closed
            reply = ("error", f"{type(exc).__name__}: {exc}"[:500])
        _send(reply)


if __name__ == "__main__":
    main()
