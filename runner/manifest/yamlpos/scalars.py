"""How a YAML scalar resolves: the YAML 1.2 core schema, and explicit core tags."""

from __future__ import annotations

import math
import re
import sys

_STR_TAG = "tag:yaml.org,2002:str"

_NULL_RE = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT_RE = re.compile(r"^[-+]?[0-9]+$")
_INT_OCT_RE = re.compile(r"^0o[0-7]+$")
_INT_HEX_RE = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT_RE = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF_RE = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN_RE = re.compile(r"^\.(?:nan|NaN|NAN)$")
_MAYBE_NON_STR = frozenset("~nNtTfF0123456789+-.")


def _resolve_plain(text: str):
    """YAML 1.2 core schema for an untagged plain scalar."""
    if not text or text[0] in _MAYBE_NON_STR:
        if _NULL_RE.fullmatch(text):
            return None
        b = _BOOL.get(text)
        if b is not None:
            return b
        if _INT_RE.fullmatch(text):
            digits = len(text.lstrip("+-"))
            limit = sys.get_int_max_str_digits()
            if limit and digits > limit:  # int() would refuse it with a message about Python
                raise ValueError(f"integer has {digits} digits; the limit is {limit}")
            return int(text, 10)
        if _INT_OCT_RE.fullmatch(text):
            return int(text[2:], 8)
        if _INT_HEX_RE.fullmatch(text):
            return int(text[2:], 16)
        if _FLOAT_RE.fullmatch(text):
            return float(text)
        if _INF_RE.fullmatch(text):
            return -math.inf if text[0] == "-" else math.inf
        if _NAN_RE.fullmatch(text):
            return math.nan
    return text


def _resolve_tagged(text: str, tag: str):
    """Explicit core tags. Raises ValueError when the text does not fit the tag."""
    if tag in (_STR_TAG, "!"):
        return text
    value = _resolve_plain(text)
    kind = tag.rsplit(":", 1)[-1]
    if kind == "int" and type(value) is int:
        return value
    if kind == "float" and type(value) in (int, float):
        return float(value)
    if kind == "bool" and type(value) is bool:
        return value
    if kind == "null" and value is None:
        return None
    raise ValueError(f"{text!r} is not a valid !!{kind}")
