"""What a step's code is given: restricted builtins, the stdout capture, the effect
recorder.

Part of the harness (inside.py): runs INSIDE the sandbox, in the harness's own namespace.
`bundle()` compiles the harness parts and inside.py as one module, this file's body first:
definitions only (tests/sandbox/test_sandbox_startup.py), so the names they use (`REQ`,
`posix`, `_RESULT_FD`, ...) are the harness's globals, resolved when called.
"""

# ruff: noqa: F821  (the harness's globals)

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
        # copy now (later mutation must not change the intent); data: strictly JSON
        snapshot = _encode(payload, f"effect {name!r} payload")
        _EFFECTS.append((name, None if key_field is None else _encode(payload[key_field]),
                         snapshot))
