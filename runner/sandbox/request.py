"""The parent's half of a sandbox request: inputs as JSON, the evaluation instant, the
timezone's offset at it, the declared effects."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any


def jsonable(value: Any) -> Any:
    def default(o):
        if isinstance(o, Decimal):
            return str(o)
        if isinstance(o, (datetime, date)):
            return o.isoformat()
        if isinstance(o, tuple):
            return list(o)
        raise TypeError(f"input value of type {type(o).__name__} is not JSON-serialisable")

    return json.dumps(value, default=default, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":"))


def eval_time(value) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if not isinstance(value, datetime):
        raise TypeError("evaluation_time must be a datetime or an ISO 8601 string")
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value


def utc_offset(at: datetime | None, timezone: str | None) -> int:
    """The timezone's UTC offset at the evaluation instant (the sandbox has no tz database:
    the parent resolves daylight saving and passes a fixed offset)."""
    if at is None or not timezone or timezone == "UTC":
        return 0
    from zoneinfo import ZoneInfo

    off = at.astimezone(ZoneInfo(timezone)).utcoffset()
    return int(off.total_seconds()) if off is not None else 0


def normalise_effects(declared: Any) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    if not declared:
        return out
    items: Iterable
    if isinstance(declared, Mapping):
        items = declared.items()
    else:
        items = [(d, None) if isinstance(d, str) else tuple(d) for d in declared]
    for name, key in items:
        if key is not None and not isinstance(key, str):
            key = getattr(key, "key", None)
        out[str(name)] = key
    return out
