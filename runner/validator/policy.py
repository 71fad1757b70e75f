"""What the step dialect allows and refuses, as data. The checks in `checks/` read only this.

Everything here is matched against the AST (identifiers already NFKC-normalised by the
parser), never against the source text.
"""

from __future__ import annotations

#: Size cap on a step file, in UTF-8 bytes (SS002). Step files are small by design.
MAX_SOURCE_BYTES = 1024 * 1024

#: Modules a step may import (plain or `from`), SS101.
ALLOWED_MODULES = frozenset({"json", "math", "decimal", "datetime", "statistics", "re"})

#: Importable only by files whose every use is a `public_egress` step, SS105.
NETWORK_MODULES = frozenset({"urllib.request", "urllib.parse", "urllib.error"})

#: Public submodules of allowed packages; `from json import decoder` is SS102.
#: (Only `json` is a package among the allowed modules; `re`'s submodules are private.)
SUBMODULES = {
    "json": frozenset({"decoder", "encoder", "scanner", "tool"}),
    "urllib": frozenset({"request", "parse", "error", "response", "robotparser"}),
}

#: Builtins that run dynamic code, read files or expose scopes: any use of the name is SS301,
#: whether called, passed around (`f = eval`) or bound (`open = ...`), so aliasing cannot
#: smuggle them.
FORBIDDEN_BUILTINS = frozenset({
    "eval", "exec", "compile", "__import__", "open", "globals", "locals", "vars", "dir",
    "breakpoint", "input", "help", "memoryview",
})

#: Builtins that read an attribute by name: allowed only as a direct call with a string
#: literal name (SS203), and that name is checked like a spelled-out attribute (SS204).
ATTRIBUTE_BUILTINS = frozenset({"getattr", "setattr", "delattr", "hasattr"})

#: Frame / code / traceback / generator / coroutine internals (SS303). Matched by prefix:
#: no public API of the allowed modules or the builtin types has an attribute with one of
#: these prefixes (tests/validator/test_module_leak_policy.py checks it), so a prefix is safe
#: and also covers attributes added by later Pythons (`gi_suspended`, `f_trace_opcodes`, ...).
FRAME_PREFIXES = ("gi_", "cr_", "ag_", "f_", "tb_", "co_")

#: SS304: `datetime.datetime.mro()[1]` is the real class behind a pinned facade.
MRO_NAMES = frozenset({"mro"})

#: SS305: names of modules reachable as *public* attributes of the allowed modules (and of
#: what those reach, computed on CPython 3.11, including the urllib modules). Refused as an
#: attribute of *anything*: a per-module allowlist is dodged by aliasing
#: (`m = [json][0]; m.codecs`), and step code has no classes, so every attribute access is
#: on a builtin or library object, none of whose public APIs use these names.
#: tests/validator/test_module_leak_policy.py recomputes the set and fails on drift.
MODULE_LEAK_NAMES = frozenset({
    "abc", "array", "base64", "base64mime", "binascii", "bisect", "bltns", "builtins",
    "charset", "client", "codecs", "collections", "contextlib", "copyreg", "decoder", "email",
    "encoder", "encoders", "enum", "errors", "feedparser", "functools", "genericpath",
    "hashlib", "header", "http", "io", "ipaddress", "iterators", "message", "numbers", "os",
    "parser", "posixpath", "quopri", "quoprimime", "random", "response", "select",
    "selectors", "socket", "ssl", "stat", "string", "struct", "sys", "tempfile", "types",
    "urllib", "utils", "warnings",
})

#: Module names that are reachable but deliberately NOT refused, each because refusing it
#: would break ordinary code (the module itself is harmless, allowed, or pinned by the
#: sandbox at OS level):
MODULE_LEAK_EXEMPT = {
    "datetime": "`datetime.datetime` is the everyday spelling; allowed module",
    "math": "allowed module (`statistics.math`)",
    "re": "allowed module; `Match.re` is public API",
    "error": "`re.error` is the exception class; `urllib.error` is allowed for egress steps",
    "parse": "`urllib.parse` is how egress steps spell the allowed module",
    "request": "`urllib.request` is how egress steps spell the allowed module",
    "time": "`datetime.time` / `dt.time()`; the `time` module is reachable only through "
    "urllib.request (egress steps) and its clock is pinned by the sandbox (libfaketime)",
    "errno": "`OSError.errno` is public API; the module holds integer constants only",
    "scanner": "`Pattern.scanner()` is public API; `json.scanner` holds only a regex-based "
    "tokenizer",
}

#: Attributes that fetch a format string's fields at run time (SS205/SS206).
FORMAT_METHODS = frozenset({"format", "format_map"})

#: Attribute whose call must carry an explicit `seed=` (SS501): `NormalDist.samples`.
SAMPLING_METHODS = frozenset({"samples"})

#: Clock reads (SS502): allowed only on a spelled-out class, never on an instance or alias.
#: `d.now()` on an instance runs the classmethod of the value's *real* class, which can
#: bypass the sandbox's pinned facade (the spec's "inherited paths to the real clock").
CLOCK_METHODS = frozenset({"now", "today", "utcnow"})
#: Receivers of a clock read, as spelled: `datetime.datetime.now()`, `datetime.date.today()`,
#: and after `from datetime import datetime, date`: `datetime.now()`, `date.today()`.
CLOCK_RECEIVERS = frozenset({"datetime.datetime", "datetime.date", "datetime", "date"})

#: Names whose meaning the shape-based rules take on trust: `str.format("{0}", x)` is approved
#: because `str` is the builtin (SS206), `date.today()` because `date` is the imported class
#: (SS502), `id(x)` is refused because `id` is the builtin (SS503). A step that binds one
#: of them itself (parameter, assignment, loop/with/except/match target, walrus, inner def,
#: import alias) gets the check the name no longer deserves: `def f(str): str.format(...)`
#: formats with a string from the inputs, `date = dt.date(); date.today()` is an instance's
#: real clock.
SHADOW_WATCHED = frozenset({"str", "date", "datetime", "id"})

#: SS503: builtins whose result is a memory address (differs between runs: not replayable).
ADDRESS_BUILTINS = frozenset({"id"})
