"""The harness's main program. It runs INSIDE the sandbox, never in the runner's process.

It is not imported as a module: the parent compiles this file once and marshals the code
object; a validated run's bootstrap (`SPARE_BOOTSTRAP` in `stepsmith.runner.harness`) loads
it from the harness memfd and the request from stdin, the test-only unvalidated one
(`BOOTSTRAP`) both from stdin; either executes it with ``ARGS`` in its globals:
``ARGS = [facades_code, check, request, trace_code]`` (check: the code check's table,
codecheck.py; trace_code: None unless the request asks for a trace, ``REQ["trace"]``; see
tracer.py). Its parts (encode.py, restricted.py, codecheck.py: definitions only) are compiled
with it
as one module, their statements first (`HARNESS_PARTS`).

Start-up cost is most of a step's cost, so this file imports nothing beyond what
``python -S`` has already loaded (``sys``, ``posix``, ``marshal``, ``io``) plus ``resource``;
facade modules are loaded only when needed.

Output protocol: exactly one JSON object on the *result fd*, a non-inheritable duplicate of
the original stdout; fds 1 and 2 are pointed at /dev/null before any step code runs, so a
program the step might ``execve`` cannot write to the parent at all. The parent trusts none
of it beyond a schema-checked result and recomputes what it can (status from exit status,
timings, redaction, effect checks).
"""

# ruff: noqa: BLE001, S102, F821  (the harness must catch everything and exec the step; its
# parts' names: encode.py, restricted.py, codecheck.py, compiled with it as one module)

import marshal
import posix
import sys

FACADES_CODE, CHECK, REQ, TRACE_CODE = ARGS  # from the bootstrap
# A spare (sandbox/spares.py, SPARE_BOOTSTRAP) gets REQ None and the reader of its stdin: it
# reads its request when taken (`_take_request`).
_READ = globals().pop("READ", None)
del ARGS

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


_RESOURCE = []  # the `resource` module, once imported (a spare imports it while it waits)


def _limits():
    resource = _RESOURCE[0] if _RESOURCE else _import_resource()

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


def _collector_on():
    """The cycle collector, off since the bootstrap, back on for the step: its cyclic garbage
    is collected as in plain Python. What the harness loaded lives as long as the sandbox:
    frozen first, so the step's collections never traverse it."""
    import gc

    gc.freeze()
    gc.enable()


def _compiled():
    """The step's code, or the result that ends the run: a validated run refuses what the
    code check (codecheck.py) finds, a syntax error included, before anything executes."""
    if REQ["validate"] and CHECK is None:
        return None, {"status": "refused", "problems": [{
            "code": "SS003", "message": "the code check was not shipped into the sandbox",
            "line": 1, "column": 0, "end_line": 1, "end_column": 1}]}
    if REQ["validate"] and len(_SOURCE.encode("utf-8", "surrogatepass")) > CHECK["max_bytes"]:
        return None, {"status": "refused", "problems": [{
            "code": "SS002", "message": "the step file is larger than the size cap",
            "line": 1, "column": 0, "end_line": 1, "end_column": 1}]}
    try:
        code = compile(_SOURCE, _STEP_FILE, "exec", dont_inherit=True)
    except BaseException as exc:
        if not REQ["validate"]:
            return None, _error_result(exc)
        syntax = isinstance(exc, SyntaxError)  # a NUL byte too (3.11.7 and 3.13 both say so)
        line = (getattr(exc, "lineno", None) or 1) if syntax else 1
        offset = (getattr(exc, "offset", None) or 1) if syntax else 1
        return None, {"status": "refused", "problems": [{
            "code": "SS001" if syntax else "SS003",
            "message": (f"{type(exc).__name__}: {_safe_str(exc)}")[:500],
            "line": line, "column": max(0, offset - 1), "end_line": line,
            "end_column": max(1, offset)}]}
    if REQ["validate"]:
        try:
            problems = _check_code(code, bool(REQ.get("allow_urllib")))
        except BaseException as exc:  # fail closed
            problems = [{"code": "SS003", "line": 1, "column": 0, "end_line": 1,
                         "end_column": 1, "message": "the code check failed inside the "
                         f"sandbox: {type(exc).__name__}: {_safe_str(exc)}"[:500]}]
        if problems:
            return None, {"status": "refused", "problems": problems}
    return code, None


def _main():
    _limits()
    code, refused = _compiled()
    if refused is not None:
        return refused

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

    # room for one more credential past the cap: the parent redacts first, then cuts, so a
    # credential printed across the cap is never left half-visible
    extra = max([len(v) for v in (REQ.get("connections") or {}).values()] or [0])
    capture = _Capture(REQ["limits"]["stdout_chars"] + extra)
    sys.stdout = capture
    sys.stderr = capture
    ns = {"__builtins__": builtins_ns, "__name__": "step", "__file__": _STEP_FILE}
    tracer = _tracer()
    _collector_on()
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
        encoded = _encode(output, "result")  # data: strictly JSON (encode.py)
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


#: The zone of a request that names none (sandbox/request.py `tz_variable`): set while a
#: spare waits, so the request of a run in it finds TZ set and read already.
_DEFAULT_ZONE = b"UTC0"
_ZONE = []  # the TZ value the C library last read (tzset)


def _set_env(k, v):
    posix.putenv(k, v)
    posix.environ[k] = v  # the snapshot os.environ is built from


def _set_zone(tz):
    """TZ = `tz`, read by the C library (tzset), unless it is the zone already read."""
    if _ZONE and _ZONE[0] == tz:
        return
    import time

    _set_env(b"TZ", tz)
    time.tzset()
    _ZONE[:] = [tz]


def _take_request():
    """The request's globals (a spare reads its request only now, when taken). The pinned clock, the local zone and the granted
    connections' variables arrive with it: libfaketime re-reads FAKETIME on every clock call
    (FAKETIME_NO_CACHE=1), TZ is re-read by tzset(), and a spare had none of them on its
    command line. All of this runs
    before any step code."""
    global REQ, _STEP_FILE, _SOURCE
    if REQ is None:
        try:  # what every run needs, loaded while the spare waits: `resource` for the
            # limits, compile()'s one-time set-up (forkserver.py `_warm`; compiling and
            # checking a step-shaped text here too cost fresh sandboxes 0.03 of the floor's
            # CPU ratio and gained a spare nothing measurable)
            _RESOURCE.append(_import_resource())
            compile("pass", "<warm>", "exec", dont_inherit=True)
            _set_zone(_DEFAULT_ZONE)  # most runs are in it: their request changes nothing
        except BaseException:  # noqa: S110 - then the run itself pays for them
            pass
        REQ = marshal.loads(_READ(int.from_bytes(_READ(8), "big")))
        posix.dup2(_NULL, 0)
    for k, v in [(b"FAKETIME", REQ.get("faketime"))] + list((REQ.get("environ") or {}).items()):
        if v is not None:
            _set_env(k if type(k) is bytes else k.encode(), v.encode())
    if REQ.get("tz") is not None:  # the C library's local zone is now the workflow's
        _set_zone(REQ["tz"].encode())
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
