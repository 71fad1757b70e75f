"""JSON at the sandbox boundary, the parent's side: what may cross, said precisely.

Values cross as UTF-8 JSON, and the promise is Python's own: a value arrives (or comes back)
as `json.loads(json.dumps(v))`, or it is refused -- with a typed result naming the place --
exactly when `json.dumps(v, allow_nan=False, ensure_ascii=False)` or encoding that text as
UTF-8 fails: a lone surrogate (text that is not Unicode), a NaN/Infinity (as a value or a
dict key), an int longer than Python's int/str conversion limit (4300 digits), a value of a
type JSON does not have. tests/reference/test_json_boundary.py holds it to the reference.

The harness (harness/encode.py) refuses the same things inside the sandbox with the same
wording; the parent checks again (`output_problem`) because it trusts nothing the sandbox
sends. Display text (printed output, error messages) is not refused but made visible:
`visible` turns each lone surrogate into its escape.
"""

from __future__ import annotations

import math
import sys
from datetime import date, datetime
from decimal import Decimal
from typing import Any


class InputError(ValueError):
    """An input cannot cross the boundary (the message says what and where)."""


def _limit() -> int:
    return sys.get_int_max_str_digits()


def digits(n: int) -> int:
    """Decimal digits of |n|, without the str() conversion the limit forbids."""
    m = abs(n)
    d = max(1, int(m.bit_length() * 0.30102999566398120))
    while d > 1 and m < 10 ** (d - 1):
        d -= 1
    while m >= 10 ** d:
        d += 1
    return d


def int_problem(n: int) -> str | None:
    limit = _limit()
    if limit and n.bit_length() > limit * 3 and digits(n) > limit:
        return (f"an integer of {digits(n)} digits is over Python's {limit}-digit limit for "
                "JSON numbers; pass it as a string")
    return None


def str_problem(s: str) -> str | None:
    if s.isascii():
        return None
    for i, c in enumerate(s):
        if 0xD800 <= ord(c) <= 0xDFFF:
            return (f"a lone surrogate U+{ord(c):04X} (character {i}) is not Unicode text; "
                    "JSON crosses the sandbox boundary as UTF-8")
    return None


def float_problem(f: float) -> str | None:
    if math.isfinite(f):
        return None
    return f"the non-finite float {f!r} (NaN/Infinity) is not JSON"


def _key_problem(k: Any) -> str | None:
    if isinstance(k, str):
        return str_problem(k)
    if k is None or isinstance(k, bool):
        return None
    if isinstance(k, int):
        return int_problem(k)
    if isinstance(k, float):
        return float_problem(k)
    return f"a dict key of type {type(k).__name__} is not JSON (keys: str, int, float, bool, None)"


def step(path: str, key: Any) -> str:
    return f"{path}[{key!r}]" if not isinstance(key, str) else f"{path}[{_quoted(key)}]"


def _quoted(s: str) -> str:
    return '"' + visible(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def problem(value: Any, root: str, *, conversions: bool = True) -> str | None:
    """The first reason `value` cannot cross as JSON, as "<path>: <reason>", or None.
    `conversions`: Decimal, date/datetime and tuple cross by the Decimal convention
    (ARCHITECTURE.md) -- they do for inputs; a result from the sandbox is plain JSON."""
    # (path, value, ancestors): ancestors is a linked chain (id, next) of the containers
    # above, so a container that contains itself is refused, not walked forever (a shared,
    # acyclic one is fine, as for json.dumps)
    todo: list[tuple[str, Any, Any]] = [(root, value, None)]
    while todo:
        path, v, up = todo.pop()
        why = None
        if v is None or isinstance(v, bool):
            continue
        if isinstance(v, (dict, list, tuple)):
            chain = up
            while chain is not None:
                if chain[0] == id(v):
                    return f"{path}: a container that contains itself is not JSON"
                chain = chain[1]
            up = (id(v), up)
        if isinstance(v, str):
            why = str_problem(v)
        elif isinstance(v, int):
            why = int_problem(v)
        elif isinstance(v, float):
            why = float_problem(v)
        elif isinstance(v, dict):
            items = list(v.items())
            for k, _ in items:
                kwhy = _key_problem(k)
                if kwhy is not None:  # (an int key's repr may be what is refused)
                    shown = "" if isinstance(k, int) else f" {visible(repr(k))}"
                    return f"{path}: dict key{shown}: {kwhy}"
            todo.extend((step(path, k), x, up) for k, x in reversed(items))
        elif isinstance(v, list) or (conversions and isinstance(v, tuple)):
            todo.extend((f"{path}[{i}]", x, up) for i, x in reversed(list(enumerate(v))))
        elif conversions and isinstance(v, (Decimal, datetime, date)):
            continue
        else:
            why = f"a value of type {type(v).__name__} is not JSON"
        if why is not None:
            return f"{path}: {why}"
    return None


def visible(s: str) -> str:
    """Display text as valid Unicode: each lone surrogate becomes its escape (`\\ud800`)."""
    if s.isascii():
        return s
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)
