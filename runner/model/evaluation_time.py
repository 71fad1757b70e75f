"""Evaluation times are instants: the one reading of a written time, wherever it is written (a
fixture's or workflow case's `evaluation_time`, `--at`, MCP's `evaluation_time`, the sandbox
request).

A time with an offset (`2026-07-01T23:30:00+01:00`, `...Z`) is that instant. A time without
one is wall time in the workflow's own zone, as its schedule is read: `2026-07-01T23:30:00` in
Europe/London is 23:30 BST. A wall time the zone's clocks repeat (the hour after clocks go
back) or skip (the hour clocks jump over) has no single instant: it is refused, naming both
readings, so the author writes the offset they mean. zoneinfo (the host's tz database, the
same data the sandbox's local time reads) decides which wall times exist.

Plain Python: the CLI, the fixture loader and the sandbox's parent side import it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

EXAMPLE = "2026-12-01T07:00:00+00:00"


class TimeRefused(ValueError):
    """Not a time, or a wall time the zone has twice or not at all (the message says which
    and names both readings)."""


def parse(text: str, zone: str | None) -> datetime:
    """The instant `text` means in a workflow whose clock zone is `zone` (None: UTC), as an
    aware datetime (in `zone` for a wall time; with its own offset otherwise)."""
    if not isinstance(text, str):
        raise TimeRefused("an evaluation time is an ISO 8601 string")
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise TimeRefused(f"{text!r} is not ISO 8601 (e.g. {EXAMPLE})") from None
    if when.tzinfo is not None:
        return when
    if not zone or zone == "UTC":
        return when.replace(tzinfo=UTC)
    tz = _zone(zone, text)
    first, second = when.replace(tzinfo=tz, fold=0), when.replace(tzinfo=tz, fold=1)
    if first.utcoffset() == second.utcoffset():
        return first
    # the two folds disagree: the wall time is repeated (both exist) or skipped (neither)
    a, b = (_with_offset(when, first.utcoffset()), _with_offset(when, second.utcoffset()))
    if _exists(first, when):
        raise TimeRefused(
            f"{text} happens twice in {zone} (the clocks go back): it is {a.isoformat()} "
            f"({first.tzname()}, the first time) or {b.isoformat()} ({second.tzname()}, the "
            "second); write the offset you mean")
    raise TimeRefused(
        f"{text} does not exist in {zone} (the clocks skip it): read with the offset before "
        f"the change it is {a.isoformat()} (= {_wall(a, tz)}), with the offset after it "
        f"{b.isoformat()} (= {_wall(b, tz)}); write the offset you mean")


def normalised(text: str, zone: str | None) -> str:
    """`parse`'s instant as ISO 8601 with its offset: what a result says was used."""
    return parse(text, zone).isoformat()


def _zone(name: str, text: str):
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise TimeRefused(f"{text} has no offset and the workflow's zone {name!r} cannot be "
                          f"read ({exc}); write the offset") from None


def _with_offset(wall: datetime, offset: timedelta | None) -> datetime:
    return wall.replace(tzinfo=timezone(offset or timedelta(0)))


def _exists(aware: datetime, wall: datetime) -> bool:
    """Does this reading of `wall` come back to the same wall time in its zone?"""
    back = aware.astimezone(UTC).astimezone(aware.tzinfo)
    return back.replace(tzinfo=None) == wall


def _wall(instant: datetime, tz) -> str:
    local = instant.astimezone(tz)
    return f"{local.replace(tzinfo=None).isoformat()} {local.tzname()}"
