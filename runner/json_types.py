"""The JSON type of a plain (decoded-JSON or YAML) value, read one way everywhere.

`json_kind` is type-strict, as comparing a step's output with a fixture needs (`1` and `1.0`
and `true` are three kinds); `json_type` is JSON Schema's name, as a hover shows it (a float is
a "number"). `bool` is tested before `int`, of which Python makes it a subclass.
"""

from __future__ import annotations

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
