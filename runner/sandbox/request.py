"""The parent's half of a sandbox request: inputs as JSON, the evaluation instant, the
sandbox's TZ, the declared effects."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from stepsmith.runner.model.evaluation_time import parse

from .boundary import InputError, problem

SANDBOX_ZONEINFO = "/usr/share/zoneinfo"  # where the sandbox sees the parent's tz database


def jsonable(value: Any) -> str:
    """The inputs as the JSON text the sandbox receives (UTF-8 encodable), or InputError
    saying what cannot cross and where (boundary.py: exactly what Python's json refuses)."""
    def default(o):
        if isinstance(o, Decimal):
            return str(o)
        if isinstance(o, (datetime, date)):
            return o.isoformat()
        if isinstance(o, tuple):
            return list(o)
        raise TypeError(f"input value of type {type(o).__name__} is not JSON-serialisable")

    try:
        text = json.dumps(value, default=default, ensure_ascii=False, allow_nan=False,
                          separators=(",", ":"))
        text.encode("utf-8")
        return text
    except RecursionError:
        raise InputError("inputs are nested too deeply to cross as JSON") from None
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError is a ValueError
        where = None
        if isinstance(value, dict):
            where = next((w for w in (problem(v, str(k)) for k, v in value.items()) if w), None)
        raise InputError(f"input {where}" if where else f"inputs are not JSON: {exc}") from None


def eval_time(value, timezone: str | None = None) -> datetime | None:
    """The evaluation instant: a time without an offset is wall time in the workflow's zone
    (`timezone`; None: UTC), read by the one parser (runner/model/evaluation_time.py);
    TimeRefused (a ValueError) for a wall time the zone repeats or skips."""
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            return value
        value = value.isoformat()
    if not isinstance(value, str):
        raise TypeError("evaluation_time must be a datetime or an ISO 8601 string")
    return parse(value, timezone)


class ZoneUnavailable(ValueError):
    """The workflow's timezone cannot be given to the sandbox (unknown name, no tz database)."""


def tz_variable(timezone: str | None, zoneinfo_dir: str | None) -> str:
    """The sandbox's TZ: the workflow's zone as the TZif file the parent's zoneinfo reads
    (bound at cmdline.SANDBOX_ZONEINFO), so the C library's local time -- every naive
    `timestamp()`, `astimezone()`, `fromtimestamp()`, `fold`, `tzname()` -- is that zone's,
    DST edges included. UTC needs no file."""
    if not timezone or timezone == "UTC":
        return "UTC0"
    try:
        ZoneInfo(timezone)  # refuses names that are not a zone (paths, "..", empty parts)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ZoneUnavailable(f"unknown timezone {timezone!r}") from exc
    if zoneinfo_dir is None:
        raise ZoneUnavailable(f"no time zone database for {timezone!r}: apt-get install tzdata "
                              "(or pip install tzdata)")
    return f":{SANDBOX_ZONEINFO}/{timezone}"


def faketime_spec(at: datetime | None) -> str:
    """libfaketime's stopped clock, in seconds since the epoch (FAKETIME_FMT=%s: never read as
    a local time, so the sandbox's TZ cannot shift it); the epoch when nothing is pinned.
    glibc's strptime("%s") takes no sign, and libfaketime reads what it cannot parse as an
    offset from the REAL clock: an instant before 1970 pins the OS clock at the epoch (the
    facade, which steps use, still gives the instant itself)."""
    if at is None:
        return "0"
    delta = at.astimezone(UTC) - datetime(1970, 1, 1, tzinfo=UTC)
    return str(max(0, delta.days * 86400 + delta.seconds))


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
