"""Where a key path leads in the manifest model: the pydantic field and type at
`("steps", 0, "network")`, the model whose keys belong inside a mapping, the values a
`Literal` allows.

One walk of the schema for the parser (its "did you mean" for an unknown key) and the editor
(hover, completion), so the two never read the model differently. Plain `typing` over the
model's annotations; the model is imported on first use, not with this module.
"""

from __future__ import annotations

import types
import typing
from typing import Any


def unwrap(tp):
    """The type inside Annotated[...] and Optional / `X | None`."""
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
            continue
        if origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            if len(args) == 1:
                tp = args[0]
                continue
        return tp


def is_model(tp) -> bool:
    return isinstance(tp, type) and hasattr(tp, "model_fields")


def field_at(key_path: tuple) -> tuple[Any, Any]:
    """(pydantic FieldInfo or None, annotation) of the key at `key_path` in a manifest."""
    from .model import Workflow  # on first use: importing this module stays cheap

    tp: Any = Workflow
    info = None
    for part in key_path:
        tp = unwrap(tp)
        if is_model(tp):
            if not isinstance(part, str) or part not in tp.model_fields:
                return None, None
            info = tp.model_fields[part]
            tp = info.annotation
            continue
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is dict and len(args) == 2:
            tp, info = args[1], None
            continue
        if origin is list and args:
            if not isinstance(part, int):
                return None, None
            tp, info = args[0], None
            continue
        return None, None
    return info, tp


def model_at(key_path: tuple):
    """The model class whose keys are expected inside `key_path` (None if not a model)."""
    _, tp = field_at(key_path)
    tp = unwrap(tp) if tp is not None else None
    return tp if is_model(tp) else None


def literal_values(tp) -> list[str]:
    """The values a `Literal[...]` annotation allows, as text ([] for any other type)."""
    tp = unwrap(tp)
    if typing.get_origin(tp) is typing.Literal:
        return [str(a) for a in typing.get_args(tp)]
    return []
