"""The harness's main program. It runs INSIDE the sandbox, never in the runner's process.

It is not imported as a module: the parent compiles this file once and marshals the code
object; a validated run's bootstrap (`SPARE_BOOTSTRAP` in `stepsmith.runner.harness`) loads
it from the harness memfd and the request from stdin, the test-only unvalidated one
(`BOOTSTRAP`) both from stdin; either executes it with ``ARGS`` in its globals:
``ARGS = [facades_code, validator_modules, request, trace_code]`` (validator_modules: the
eager code objects and the other modules' marshalled code, see `_install_modules`) (trace_code: None unless
the request asks for a trace, ``REQ["trace"]``; see trace.py).

Start-up cost is most of a step's cost, so this file imports nothing beyond what
``python -S`` has already loaded (``sys``, ``posix``, ``marshal``, ``io``) plus ``resource``;
facade modules and the validator are loaded only when needed.

Output protocol: exactly one JSON object on the *result fd*, a non-inheritable duplicate of
the original stdout; fds 1 and 2 are pointed at /dev/null before any step code runs, so a
program the step might ``execve`` cannot write to the parent at all. The parent trusts none
of it beyond a schema-checked result and recomputes what it can (status from exit status,
timings, redaction, effect checks).
"""

# ruff: noqa: BLE001, S102  (the harness must catch everything and exec the step)

import marshal
import posix
import sys

FACADES_CODE, VALIDATOR_MODULES, REQ, TRACE_CODE = ARGS  # noqa: F821  (from the bootstrap)
# A spare (sandbox/spares.py, SPARE_BOOTSTRAP) gets REQ None and the reader of its stdin: it
# loads the validator first and reads its request after (`_take_request`).
_READ = globals().pop("READ", None)
del ARGS  # noqa: F821

_RESULT_FD = posix.dup(1)  # non-inheritable (O_CLOEXEC): lost on execve
_NULL = posix.open("/dev/null", posix.O_RDWR)
if REQ is not None:
    posix.dup2(_NULL, 0)
posix.dup2(_NULL, 1)
posix.dup2(_NULL, 2)
if b"PWD" in posix.environ:  # set by bwrap's --chdir; the environment is exactly the granted one
    posix.unsetenv("PWD")
    del posix.environ[b"PWD"]  # the snapshot os.environ is built from

_STEP_FILE = None  # set from the request (_take_request), before anything uses them
_SOURCE = None
_VALIDATOR_READY = []  # [True] once the shipped validator modules are installed
_VIOLATIONS = []  # runtime refusals (unseeded sampling, undeclared effect) even if caught
_EFFECTS = []


def _import_resource():
    """`import resource`, minus the path search (~0.1 ms): the extension module is loaded
    from the interpreter's lib-dynload directory (where `import` would find it: nothing
    earlier on sys.path provides `resource`), through the import system's own loader, so the
    module is set up and registered exactly as by `import`. Falls back to `import`."""
    try:
        import _imp

        bootstrap = sys.modules["_frozen_importlib"]
        external = sys.modules["_frozen_importlib_external"]
        for entry in sys.path:
            if entry.endswith("/lib-dynload"):
                path = entry + "/resource" + _imp.extension_suffixes()[0]
                posix.stat(path)
                loader = external.ExtensionFileLoader("resource", path)
                return bootstrap._load(external.spec_from_file_location("resource", path,
                                                                        loader=loader))
    except Exception:  # noqa: S110 - any surprise: the plain import below
        pass
    import resource

    return resource


def _limits():
    resource = _import_resource()

    lim = REQ["limits"]
    cpu = lim["cpu_seconds"]
    settings = [
        (resource.RLIMIT_CPU, (cpu, cpu)),  # soft == hard: the kernel sends SIGKILL at `cpu`
        (resource.RLIMIT_AS, (lim["memory_bytes"], lim["memory_bytes"])),
        (resource.RLIMIT_FSIZE, (0, 0)),
        (resource.RLIMIT_NPROC, (0, 0)),
        (resource.RLIMIT_CORE, (0, 0)),
        # fds pin kernel memory outside RLIMIT_AS (a pipe buffer is up to 1 MiB); the
        # harness needs a handful
        (resource.RLIMIT_NOFILE, (64, 64)),
        (resource.RLIMIT_MSGQUEUE, (0, 0)),
        # queued signals (sigqueue, POSIX timers) are charged to the host user's quota: a
        # step queued 96,362 and the host user's own sigqueue() then failed with EAGAIN
        (resource.RLIMIT_SIGPENDING, (16, 16)),
    ]
    for what, value in settings:
        resource.setrlimit(what, value)


# --------------------------------------------------------------------------- result output


def _write_result(obj):
    data = _result_bytes(obj)
    trace = _TRACE_OUT[0] if _TRACE_OUT else None
    if trace is not None and data.endswith(b"}"):  # its own budget: never costs the result
        tdata = _trace_bytes(trace)
        if tdata is not None:
            data = data[:-1] + (b',"trace":' if len(data) > 2 else b'"trace":') + tdata + b"}"
    view = memoryview(data)
    while view:
        n = posix.write(_RESULT_FD, view)
        view = view[n:]
    posix.close(_RESULT_FD)


def _trace_bytes(trace):
    cap = REQ["trace"]["max_bytes"]
    data = _encode(trace).encode("utf-8")
    if len(data) > cap and "values" in trace:
        data = _encode(dict(trace, values=[], truncated=True)).encode("utf-8")
    if len(data) > cap:
        data = _encode({"lines": [], "arcs": [], "truncated": True}).encode("utf-8")
    return data


def _result_bytes(obj):
    data = _encode(obj).encode("utf-8")
    cap = REQ["limits"]["output_bytes"]
    if len(data) > cap and obj.get("stdout"):  # printed text goes first, the result stays
        obj = dict(obj, stdout="[stdout dropped: the result alone is near the output limit]")
        data = _encode(obj).encode("utf-8")
    if len(data) > cap:
        data = _encode(
            {"status": "output_limit", "message": f"result is {len(data)} bytes; the limit is {cap}"}
        ).encode("utf-8")
    return data


def _finish(obj):
    try:
        _write_result(obj)
    except MemoryError:
        _TRACE_OUT.clear()
        try:
            _write_result({"status": "memory_limit", "message": "out of memory writing the result"})
        except BaseException:
            posix._exit(3)
    except BaseException as exc:  # the result itself could not be written: say so minimally
        _TRACE_OUT.clear()
        try:
            _write_result({"status": "error", "error": {
                "type": "OutputError", "message": _safe_str(exc), "traceback": []}})
        except BaseException:
            posix._exit(3)
    posix._exit(0)


_ESCAPES = {i: "\\u%04x" % i for i in range(32)}
_ESCAPES.update({0x22: '\\"', 0x5C: "\\\\", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"})


def _json_str(s):
    s = s.translate(_ESCAPES)
    if not s.isascii():
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: escape them, JSON allows \udXXX
            s = "".join("\\u%04x" % ord(c) if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)
    return '"' + s + '"'


class NotJSONError(TypeError):
    pass


def _convert(v):
    """Decimal -> str, date/datetime/time -> ISO 8601, tuple -> list (ARCHITECTURE.md)."""
    t = type(v)
    dec = sys.modules.get("decimal")
    if dec is not None and isinstance(v, dec.Decimal):
        return str(v)
    dt = sys.modules.get("datetime")
    if dt is not None and isinstance(v, (dt.date, dt.time)):
        return v.isoformat()
    if dt is not None and isinstance(v, dt.timedelta):
        raise NotJSONError("a timedelta cannot cross the boundary; return e.g. total_seconds()")
    raise NotJSONError(f"value of type {t.__name__} is not JSON-serialisable")


def _encode(v):
    out = []
    _enc(v, out.append)
    return "".join(out)


def _enc(v, put):
    t = type(v)
    if t is str:
        put(_json_str(v))
    elif v is None:
        put("null")
    elif v is True:
        put("true")
    elif v is False:
        put("false")
    elif t is int:
        put(int.__repr__(v))
    elif t is float:
        if v != v or v in (float("inf"), float("-inf")):  # noqa: PLR0124 - NaN check, no math import
            raise NotJSONError("output contains a non-finite float (NaN/Infinity)")
        put(float.__repr__(v))
    elif t is dict:
        put("{")
        first = True
        for k, item in v.items():
            if type(k) is not str:
                if k is True or k is False or k is None:
                    k = {True: "true", False: "false", None: "null"}[k]
                elif type(k) in (int, float):
                    k = repr(k)
                else:
                    raise NotJSONError(f"dict key of type {type(k).__name__} is not JSON")
            if not first:
                put(",")
            first = False
            put(_json_str(k))
            put(":")
            _enc(item, put)
        put("}")
    elif t is list or t is tuple:
        put("[")
        for i, item in enumerate(v):
            if i:
                put(",")
            _enc(item, put)
        put("]")
    elif isinstance(v, (str, int, float, dict, list, tuple)) and t is not bool:
        raise NotJSONError(f"value of type {t.__name__} is not JSON-serialisable")
    else:
        _enc(_convert(v), put)


# --------------------------------------------------------------------------- errors


def _safe_str(exc):
    try:
        s = str(exc)
        return s if type(s) is str else ""
    except BaseException:
        return "<unprintable>"


def _error_result(exc):
    frames = []
    lines = None
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == _STEP_FILE:
            if lines is None:
                lines = _SOURCE.splitlines()
            n = tb.tb_lineno or 0
            text = lines[n - 1].strip() if 0 < n <= len(lines) else ""
            frames.append({"file": _STEP_FILE, "line": n, "function": code.co_name, "text": text})
        tb = tb.tb_next
    if isinstance(exc, SyntaxError) and exc.filename == _STEP_FILE and exc.lineno:
        lines = _SOURCE.splitlines()
        n = exc.lineno
        text = lines[n - 1].strip() if 0 < n <= len(lines) else ""
        frames.append({"file": _STEP_FILE, "line": n, "function": "<module>", "text": text})
    try:
        name = type(exc).__name__
    except BaseException:
        name = "Exception"
    return {"status": "error", "error": {"type": str(name), "message": _safe_str(exc),
                                         "traceback": frames}}


# --------------------------------------------------------------------------- facades


_FACADE_NS = None


def _facades():
    global _FACADE_NS
    if _FACADE_NS is None:
        ns = {"__name__": "stepsmith_facades", "REQ": REQ, "VIOLATIONS": _VIOLATIONS}
        exec(marshal.loads(FACADES_CODE), ns)
        _FACADE_NS = ns
    return _FACADE_NS


# --------------------------------------------------------------------------- validation


def _revalidate():
    """Nothing executes unparsed: run the validator again, here, on the bytes we received."""
    if VALIDATOR_MODULES is None:
        return [{"code": "SS003", "message": "validator not shipped into the sandbox",
                 "line": 1, "column": 0, "end_line": 1, "end_column": 1}]
    try:
        if not _VALIDATOR_READY:
            _install_modules(*VALIDATOR_MODULES)
        # The validator's import path is kept to built-in modules (`_ast` rather than `ast`,
        # no dataclasses/enum/typing/re/functools): tests/sandbox/test_sandbox_startup.py.
        from stepsmith.runner.validator import StepUse, validate

        uses = [StepUse(*u) for u in REQ["uses"]]
        problems = validate(_SOURCE, python=REQ["python"], uses=uses)
        out = []
        for p in problems:
            sev = getattr(getattr(p, "severity", None), "value", "error")
            if sev != "error":
                continue
            sp = p.span
            out.append({"code": p.code, "message": p.message, "line": sp.line,
                        "column": sp.column, "end_line": sp.end_line,
                        "end_column": sp.end_column, "step": p.step})
        return out
    except BaseException as exc:  # fail closed
        return [{"code": "SS003", "line": 1, "column": 0, "end_line": 1, "end_column": 1,
                 "message": "validator failed inside the sandbox: "
                            f"{type(exc).__name__}: {_safe_str(exc)}"[:500]}]


def _install_modules(eager, mods):
    """Serve the shipped validator modules from memory.

    `eager`: (name, is_package, code) for what importing the validator executes, in that
    order (dependencies first, as computed by the parent: `stepsmith.runner.harness.
    exec_order`), their code objects unmarshalled with the harness frame itself; each is
    executed right here into a module object set up as the import system would
    (`__spec__`, `__loader__`, `__package__`, `__path__`; registered in sys.modules and bound
    on its parent package before its code runs), without importlib's per-module bookkeeping
    (~20 µs each). Their own import statements then find them in sys.modules. `mods`: every
    other shipped module (name -> (is_package, marshalled code)), unmarshalled only if
    imported, served by the meta-path finder below.
    """
    ModuleSpec = sys.modules["_frozen_importlib"].ModuleSpec  # loaded at start-up; importlib is not
    CodeType = type(_install_modules.__code__)
    # an eager module imported before its turn (an import cycle) is served like any other
    mods.update((name, (is_pkg, code)) for name, is_pkg, code in eager if name not in mods)

    class Loader:
        @staticmethod
        def create_module(spec):
            return None

        @staticmethod
        def exec_module(module):
            name = module.__spec__.name
            code = mods[name][1]
            exec(code if type(code) is CodeType else marshal.loads(code), module.__dict__)

    class Finder:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name in mods:
                is_pkg = mods[name][0]
                spec = ModuleSpec(name, Loader, is_package=is_pkg)
                if is_pkg:
                    spec.submodule_search_locations = []
                return spec
            if name in ("stepsmith", "stepsmith.runner"):
                spec = ModuleSpec(name, Loader, is_package=True)
                spec.submodule_search_locations = []
                mods.setdefault(name, (True, marshal.dumps(compile("", f"<{name}>", "exec"))))
                return spec
            return None

    sys.meta_path.insert(0, Finder)

    Module = type(sys)
    modules = sys.modules
    ahead = set()  # packages set up before their own code runs (a submodule came first)

    def module(name, is_pkg):
        m = modules.get(name)
        if m is None:
            parent, _, child = name.rpartition(".")
            if parent:
                if parent not in modules:
                    ahead.add(parent)
                module(parent, True)
            m = Module(name)
            spec = ModuleSpec(name, Loader, is_package=is_pkg)
            m.__spec__ = spec
            m.__loader__ = Loader
            if is_pkg:
                spec.submodule_search_locations = m.__path__ = []
                m.__package__ = name
            else:
                m.__package__ = parent
            modules[name] = m
            if parent:
                setattr(modules[parent], child, m)
        return m

    for name, is_pkg, code in eager:
        if name in modules and name not in ahead:
            continue  # already imported
        ahead.discard(name)
        exec(code, module(name, is_pkg).__dict__)


# --------------------------------------------------------------------------- builtins


def _restricted_builtins(importer):
    import builtins as real

    b = dict(real.__dict__)
    for name in (
        "open", "eval", "exec", "compile", "__import__", "input", "breakpoint", "help",
        "globals", "locals", "vars", "dir", "memoryview", "exit", "quit", "copyright",
        "credits", "license", "__build_class__", "__loader__", "__spec__", "setattr",
        "delattr", "classmethod", "staticmethod", "property", "super", "aiter", "anext",
        "getattr", "hasattr", "type", "id",  # id: a memory address (SS503)
    ):
        b.pop(name, None)
    _getattr = real.getattr
    _type = real.type
    blocked = frozenset({
        "mro", "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await",
        "ag_frame", "ag_code", "f_back", "f_globals", "f_locals", "f_builtins", "f_code",
        "tb_frame", "tb_next", "co_code", "format_map",
        # the methods the validator judges by the call's shape (SS204): handed out by
        # getattr they would be called unchecked (a data-driven format string, the clock)
        "format", "samples", "now", "today", "utcnow",
    })

    def getattr(obj, name, *default):
        if _type(name) is not str or name.startswith("_") or name in blocked:
            raise AttributeError(f"attribute {name!r} is not accessible in a step")
        return _getattr(obj, name, *default)

    def hasattr(obj, name):
        if _type(name) is not str or name.startswith("_") or name in blocked:
            raise AttributeError(f"attribute {name!r} is not accessible in a step")
        return real.hasattr(obj, name)

    def type(obj):
        return _type(obj)

    b["getattr"] = getattr
    b["hasattr"] = hasattr
    b["type"] = type
    b["__import__"] = importer
    return b


# --------------------------------------------------------------------------- stdout capture


class _Capture:
    """print() inside the step lands here (capped), never on a file descriptor."""

    __slots__ = ("cap", "parts", "size", "truncated")

    def __init__(self, cap):
        self.parts = []
        self.size = 0
        self.cap = cap
        self.truncated = False

    def write(self, s):
        if type(s) is not str:
            raise TypeError("write() argument must be str")
        room = self.cap - self.size
        if len(s) > room:
            s = s[:max(room, 0)]
            self.truncated = True
        self.parts.append(s)
        self.size += len(s)
        return len(s)

    def flush(self):
        pass

    def text(self):
        return "".join(self.parts) + ("\n[stdout truncated]" if self.truncated else "")


# --------------------------------------------------------------------------- effects


class EffectError(Exception):
    pass


class Effects:
    """The effect recorder a step receives as its `effects` parameter. Nothing is performed."""

    __slots__ = ()

    def emit(self, name, payload):
        declared = REQ["effects"]
        if type(name) is not str or name not in declared:
            msg = f"effect {name!r} is not declared for this step"
            _VIOLATIONS.append(("effect", msg))
            raise EffectError(msg)
        if type(payload) is not dict:
            msg = f"effect {name!r} payload must be a dict"
            _VIOLATIONS.append(("effect", msg))
            raise EffectError(msg)
        key_field = declared[name]
        if key_field is not None and key_field not in payload:
            msg = f"effect {name!r} payload has no key field {key_field!r}"
            _VIOLATIONS.append(("effect", msg))
            raise EffectError(msg)
        snapshot = _encode(payload)  # copy now; later mutation must not change the intent
        _EFFECTS.append((name, None if key_field is None else _encode(payload[key_field]),
                         snapshot))


# --------------------------------------------------------------------------- main


_TRACE_OUT = []  # the finished trace, when one was asked for (written after the result)


def _tracer():
    """The trace's start/stop/result, or None when the request asks for none."""
    if TRACE_CODE is None or not REQ.get("trace"):
        return None
    ns = {"__name__": "stepsmith_trace", "CONF": REQ["trace"],
          "SECRETS": list((REQ.get("connections") or {}).values())}
    exec(marshal.loads(TRACE_CODE), ns)
    return ns


def _main():
    _limits()
    if REQ["validate"]:
        problems = _revalidate()
        if problems:
            return {"status": "refused", "problems": problems}

    facades = None

    def importer(name, globals=None, locals=None, fromlist=(), level=0):
        nonlocal facades
        if facades is None:
            facades = _facades()
        return facades["guarded_import"](name, fromlist, level, REQ["restricted"])

    if REQ["restricted"]:
        builtins_ns = _restricted_builtins(importer)
    else:
        import builtins as real

        builtins_ns = dict(real.__dict__)
        builtins_ns["__import__"] = importer

    try:
        code = compile(_SOURCE, _STEP_FILE, "exec", dont_inherit=True)
    except BaseException as exc:
        return _error_result(exc)

    # room for one more credential past the cap: the parent redacts first, then cuts, so a
    # credential printed across the cap is never left half-visible
    extra = max([len(v) for v in (REQ.get("connections") or {}).values()] or [0])
    capture = _Capture(REQ["limits"]["stdout_chars"] + extra)
    sys.stdout = capture
    sys.stderr = capture
    ns = {"__builtins__": builtins_ns, "__name__": "step", "__file__": _STEP_FILE}
    tracer = _tracer()
    try:
        if tracer is not None:
            tracer["start"]()
        exec(code, ns)
        fn = ns.get(REQ["function"])
        if type(fn) is not type(_main):
            raise NameError(f"step function {REQ['function']!r} is not defined in {_STEP_FILE}")
        fcode = fn.__code__
        params = fcode.co_varnames[: fcode.co_argcount + fcode.co_kwonlyargcount]
        kwargs = dict(REQ["inputs"])
        if "connections" in params and "connections" not in kwargs:
            kwargs["connections"] = dict(REQ["connections"])
        if "effects" in params and "effects" not in kwargs:
            kwargs["effects"] = Effects()
        output = fn(**kwargs)
        if tracer is not None:
            tracer["stop"]()
        encoded = _encode(output)
    except MemoryError:
        return {"status": "memory_limit", "message": "the step ran out of memory",
                "stdout": capture.text()}
    except BaseException as exc:
        res = _error_result(exc)
        res["stdout"] = capture.text()
        return _with_violations(res)
    finally:
        if tracer is not None:
            tracer["stop"]()
            try:
                _TRACE_OUT.append(tracer["result"]())
            except BaseException:  # noqa: S110 - advisory: no trace rather than no result
                pass
    res = {"status": "ok", "output": _Raw(encoded), "stdout": capture.text(),
           "effects": [_Raw('{"effect":%s,"key":%s,"payload":%s}'
                            % (_json_str(n), "null" if k is None else k, p))
                       for n, k, p in _EFFECTS]}
    return _with_violations(res)


def _with_violations(res):
    if _VIOLATIONS:
        kind = _VIOLATIONS[0][0]
        msgs = [m for _, m in _VIOLATIONS]
        if kind == "sampling":
            return {"status": "refused", "stdout": res.get("stdout", ""),
                    "problems": [{"code": "SS501", "message": m, "line": 1, "column": 0,
                                  "end_line": 1, "end_column": 1} for m in msgs]}
        return {"status": "error", "stdout": res.get("stdout", ""),
                "error": {"type": "EffectError", "message": msgs[0],
                          "traceback": (res.get("error") or {}).get("traceback", [])}}
    return res


class _Raw(str):
    """Already-encoded JSON text (the step's output is encoded inside the try block)."""


_enc_plain = _enc


def _enc(v, put):
    if type(v) is _Raw:
        put(str.__str__(v))
    else:
        _enc_plain(v, put)


def _take_request():
    """The request's globals; a spare first installs the validator (its request is not
    there yet), then reads the request. The pinned clock and the granted connections'
    variables arrive with it: libfaketime re-reads FAKETIME on every clock call
    (FAKETIME_NO_CACHE=1), and a spare had neither on its command line. All of this runs
    before any step code."""
    global REQ, _STEP_FILE, _SOURCE
    if REQ is None:
        if VALIDATOR_MODULES is not None:
            try:
                _install_modules(*VALIDATOR_MODULES)
                _VALIDATOR_READY.append(True)
            except BaseException:  # noqa: S110 - _revalidate tries again and fails closed
                pass
        REQ = marshal.loads(_READ(int.from_bytes(_READ(8), "big")))
        posix.dup2(_NULL, 0)
    for k, v in [(b"FAKETIME", REQ.get("faketime"))] + list((REQ.get("environ") or {}).items()):
        if v is not None:
            k = k if type(k) is bytes else k.encode()
            posix.putenv(k, v.encode())
            posix.environ[k] = v.encode()
    _STEP_FILE = REQ["filename"]
    # A UTF-8 byte-order mark is not part of the code: the validator ignores it (as Python
    # does for a file), so the harness does too (compile() of a str refuses U+FEFF).
    _SOURCE = REQ["source"].removeprefix("\ufeff")


try:
    _take_request()
    _RESULT = _main()
except MemoryError:
    _RESULT = {"status": "memory_limit", "message": "the step ran out of memory"}
except BaseException as _exc:
    _RESULT = {"status": "error", "error": {"type": "HarnessError",
                                            "message": _safe_str(_exc)[:500], "traceback": []}}
sys.stdout = sys.__stdout__
sys.stderr = sys.__stderr__
_finish(_RESULT)
