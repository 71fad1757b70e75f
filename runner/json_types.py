"""The JSON type of a plain (decoded-JSON or YAML) value, read one way everywhere.

`json_kind` is type-strict, as comparing a step's output with a fixture needs (`1` and `1.0`
and `true` are three kinds); `json_type` is JSON Schema's name, as a hover shows it (a float is
a "number"). `bool` is tested before `int`, of which Python makes it a subclass.
"""

from __future__ import annotations

import json
import sys
from typing import Any

_KINDS = ((type(None), "null"), (bool, "boolean"), (int, "integer"), (float, "float"),
          (str, "string"), (list, "array"), (dict, "object"))


def json_kind(value: Any) -> str:
    """null, boolean, integer, float, string, array or object; else the Python type's name."""
    for tp, kind in _KINDS:
        if isinstance(value, tp):
            return kind
    return type(value).__name__


def json_type(value: Any) -> str:
    """JSON Schema's type name: json_kind with "number" for a float."""
    kind = json_kind(value)
    return "number" if kind == "float" else kind


class BigNumber(ValueError):
    """JSON text holds an integer longer than Python's int/str digit limit: `json.loads`
    raises a bare ValueError without a position; this one names the value's path."""

    def __init__(self, path: tuple, digits: int):
        self.path, self.digits = path, digits
        super().__init__(f"an integer of {digits} digits is over Python's {sys.get_int_max_str_digits()}-digit "
                         "limit for JSON numbers; store it as a string")


class _Digits(str):
    pass


def json_loads(text: str) -> Any:
    """`json.loads(text)`, or BigNumber (a ValueError) for an integer over the digit limit.
    Other errors are json's own (JSONDecodeError with its position, RecursionError)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:
        limit = sys.get_int_max_str_digits()
        if not limit:
            raise
    found: list[_Digits] = []

    def parse_int(s: str):
        if len(s) - s.startswith("-") > limit:
            found.append(_Digits(s))
            return found[-1]
        return int(s)

    data = json.loads(text, parse_int=parse_int)
    if not found:  # pragma: no cover - the ValueError had another cause: json's own
        return json.loads(text)
    todo: list[tuple[tuple, Any]] = [((), data)]
    while todo:
        path, v = todo.pop()
        if type(v) is _Digits:
            raise BigNumber(path, len(v) - v.startswith("-"))
        if isinstance(v, dict):
            todo.extend((path + (k,), x) for k, x in reversed(list(v.items())))
        elif isinstance(v, list):
            todo.extend((path + (i,), x) for i, x in reversed(list(enumerate(v))))
    raise BigNumber((), len(found[0]))  # pragma: no cover - every one is in the tree
