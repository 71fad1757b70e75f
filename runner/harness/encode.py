"""The harness's output: the result as exactly one JSON object on the result fd, its own
JSON encoder (no `json` import inside the sandbox), and the trace after it.

Part of the harness (inside.py): runs INSIDE the sandbox, in the harness's own namespace.
`bundle()` compiles the harness parts and inside.py as one module, this file's body first:
definitions only (tests/sandbox/test_sandbox_startup.py), so the names they use (`REQ`,
`posix`, `_RESULT_FD`, ...) are the harness's globals, resolved when called.
"""

# ruff: noqa: F821, BLE001  (the harness's globals; the harness must catch everything)

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


_ESCAPES = {**{i: "\\u%04x" % i for i in range(32)},
            0x22: '\\"', 0x5C: "\\\\", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}


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


class _Raw(str):
    """Already-encoded JSON text (the step's output is encoded inside the try block)."""


_enc_plain = _enc


def _enc(v, put):
    if type(v) is _Raw:
        put(str.__str__(v))
    else:
        _enc_plain(v, put)
