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


def _json_str(s, strict=False):
    """A JSON string. `strict` (a step's result or effect payload: data) refuses a lone
    surrogate, as Python's json + UTF-8 would; otherwise (display text: printed output, error
    messages) each is shown as its escape, `\\ud800`, so the text stays Unicode."""
    if not s.isascii():
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            bad = [(i, c) for i, c in enumerate(s) if 0xD800 <= ord(c) <= 0xDFFF]
            if strict:
                i, c = bad[0]
                raise NotJSONError("a lone surrogate U+%04X (character %d) is not Unicode "
                                   "text; JSON crosses the sandbox boundary as UTF-8"
                                   % (ord(c), i)) from None
            s = "".join("\\u%04x" % ord(c) if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)
    return '"' + s.translate(_ESCAPES) + '"'


class NotJSONError(TypeError):
    """A value the boundary refuses (the same cases and wording as sandbox/boundary.py);
    `path` collects the keys/indexes leading to it as the encoder unwinds."""

    def __init__(self, reason):
        super().__init__(reason)
        self.path = []


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
    raise NotJSONError(f"a value of type {t.__name__} is not JSON")


def _encode(v, root=None):
    """JSON text of `v`. With `root` (a step's result or an effect payload, named so in the
    message) it is data: strictly JSON, or NotJSONError saying what and where."""
    out = []
    if root is None:
        _enc(v, out.append, False)
        return "".join(out)
    try:
        _enc(v, out.append, True)
    except RecursionError:  # json.dumps: "Circular reference detected" / RecursionError
        raise NotJSONError(f"{root}: nested too deeply, or contains itself, to cross as "
                           "JSON") from None
    except NotJSONError as exc:
        where = root + "".join(
            "[%s]" % (_json_str(p) if type(p) is str else repr(p)) for p in reversed(exc.path))
        raise NotJSONError(f"{where}: {exc}") from None
    return "".join(out)


def _int_text(n):
    try:
        return int.__repr__(n)
    except ValueError:  # over sys.get_int_max_str_digits(): say how long, without str()
        m, d = abs(n), max(1, int(n.bit_length() * 0.30102999566398120))
        while d > 1 and m < 10 ** (d - 1):
            d -= 1
        while m >= 10 ** d:
            d += 1
        raise NotJSONError(f"an integer of {d} digits is over Python's "
                           f"{sys.get_int_max_str_digits()}-digit limit for JSON numbers; "
                           "pass it as a string") from None


def _float_text(f):
    if f != f or f in (float("inf"), float("-inf")):  # noqa: PLR0124 - NaN check, no math import
        raise NotJSONError(f"the non-finite float {f!r} (NaN/Infinity) is not JSON")
    return float.__repr__(f)


def _enc(v, put, strict):
    t = type(v)
    if t is str:
        put(_json_str(v, strict))
    elif v is None:
        put("null")
    elif v is True:
        put("true")
    elif v is False:
        put("false")
    elif t is int:
        put(_int_text(v))
    elif t is float:
        put(_float_text(v))
    elif t is dict:
        put("{")
        first = True
        for k, item in v.items():
            if type(k) is not str:  # as json.dumps converts keys
                if k is True or k is False or k is None:
                    k = {True: "true", False: "false", None: "null"}[k]
                elif type(k) is int or type(k) is float:
                    try:
                        k = _int_text(k) if type(k) is int else _float_text(k)
                    except NotJSONError as exc:
                        raise NotJSONError(f"dict key: {exc}") from None
                else:
                    raise NotJSONError(f"a dict key of type {type(k).__name__} is not JSON "
                                       "(keys: str, int, float, bool, None)")
            if not first:
                put(",")
            first = False
            put(_json_str(k, strict))
            put(":")
            try:
                _enc(item, put, strict)
            except NotJSONError as exc:
                exc.path.append(k)
                raise
        put("}")
    elif t is list or t is tuple:
        put("[")
        for i, item in enumerate(v):
            if i:
                put(",")
            try:
                _enc(item, put, strict)
            except NotJSONError as exc:
                exc.path.append(i)
                raise
        put("]")
    elif isinstance(v, (str, int, float, dict, list, tuple)) and t is not bool:
        raise NotJSONError(f"a value of type {t.__name__} is not JSON")
    else:
        _enc(_convert(v), put, strict)


class _Raw(str):
    """Already-encoded JSON text (the step's output is encoded inside the try block)."""


_enc_plain = _enc


def _enc(v, put, strict):
    if type(v) is _Raw:
        put(str.__str__(v))
    else:
        _enc_plain(v, put, strict)
