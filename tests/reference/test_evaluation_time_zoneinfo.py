"""The one reading of a written evaluation time (runner/model/evaluation_time.py) against
Python's zoneinfo: for generated wall times, half of them within hours of a real transition of
several zones (one-hour DST both hemispheres, Lord Howe's half-hour DST, Santiago, Apia's
skipped day, a half-hour zone without DST), the reference finds every instant whose wall time
in the zone is the written one (each candidate offset the zone has near it, kept only when
zoneinfo reads it back to the same wall time):
- one instant: the parser gives exactly it;
- two (clocks went back): refused, naming both readings;
- none (clocks skipped it): refused, naming the readings with the offsets before and after.
A time with an offset is that instant whatever the zone."""

from __future__ import annotations

import functools
from collections import Counter
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stepsmith.runner.model.evaluation_time import TimeRefused, parse

ZONES = ("Europe/London", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe",
         "America/Santiago", "Pacific/Apia", "Asia/Kolkata")
LO, HI = datetime(1970, 1, 1, tzinfo=UTC), datetime(2037, 12, 31, tzinfo=UTC)
SEEN: Counter = Counter()


@functools.cache
def transitions(zone: str) -> tuple[datetime, ...]:
    """Every UTC offset change of `zone` in 1970-2037, to the second (zoneinfo's own data)."""
    z = ZoneInfo(zone)

    def off(t: datetime):
        return t.astimezone(z).utcoffset()

    out, t, prev = [], LO, off(LO)
    while t < HI:
        nxt = min(t + timedelta(days=6), HI)
        cur = off(nxt)
        if cur != prev:
            lo, hi = t, nxt
            while hi - lo > timedelta(seconds=1):
                mid = lo + (hi - lo) / 2
                lo, hi = (mid, hi) if off(mid) == prev else (lo, mid)
            out.append(hi.replace(microsecond=0))
        t, prev = nxt, cur
    return tuple(out)


@st.composite
def wall_time(draw) -> tuple[str, datetime]:
    zone = draw(st.sampled_from(ZONES))
    edges = transitions(zone)
    if edges and draw(st.booleans()):  # near a real transition: wall times on both sides
        edge = draw(st.sampled_from(edges))
        local = edge.astimezone(ZoneInfo(zone)).replace(tzinfo=None)
        wall = local + timedelta(minutes=draw(st.integers(-180, 180)))
    else:
        wall = datetime(1970, 1, 2) + timedelta(minutes=draw(st.integers(0, 35_000_000)))
    return zone, wall


def readings(zone: str, wall: datetime) -> list[datetime]:
    """Every instant whose wall time in `zone` is `wall`, by zoneinfo."""
    z = ZoneInfo(zone)
    offsets = {(wall + timedelta(hours=h)).replace(tzinfo=z).utcoffset() for h in (-30, 0, 30)}
    offsets |= {wall.replace(tzinfo=z, fold=f).utcoffset() for f in (0, 1)}
    out = []
    for o in offsets:
        cand = wall.replace(tzinfo=timezone(o))
        if cand.astimezone(z).replace(tzinfo=None) == wall:
            out.append(cand)
    return sorted(out, key=lambda d: d.astimezone(UTC))


@settings(max_examples=1500, deadline=None)
@given(wall_time())
def _each_wall_time(drawn):
    zone, wall = drawn
    text = wall.isoformat()
    want = readings(zone, wall)
    assert len(want) <= 2
    if len(want) == 1:
        SEEN["one"] += 1
        got = parse(text, zone)
        assert got == want[0] and got.utcoffset() == want[0].utcoffset()
        assert got.replace(tzinfo=None) == wall
        return
    with pytest.raises(TimeRefused) as refused:
        parse(text, zone)
    msg = str(refused.value)
    if len(want) == 2:
        SEEN["twice"] += 1
        assert "happens twice" in msg
        named = want
    else:
        SEEN["none"] += 1
        assert "does not exist" in msg
        z = ZoneInfo(zone)  # the offsets in force 30 hours before and after it
        named = [wall.replace(tzinfo=timezone((wall + timedelta(hours=h)).replace(
            tzinfo=z).utcoffset())) for h in (-30, 30)]
    for r in named:
        assert r.isoformat() in msg, (r.isoformat(), msg)


def test_a_wall_time_reads_as_zoneinfo_says_or_is_refused_naming_both():
    """The property, then how many of each answer it met: the generated wall times covered
    the three, so none of its branches was left untested."""
    SEEN.clear()
    _each_wall_time()
    assert SEEN["one"] > 200 and SEEN["twice"] > 20 and SEEN["none"] > 20, SEEN


@given(st.sampled_from(ZONES), st.datetimes(datetime(1970, 1, 2), datetime(2037, 1, 1),
                                            timezones=st.just(UTC)),
       st.integers(-14 * 60, 14 * 60))
def test_a_time_with_an_offset_is_that_instant_in_any_zone(zone, instant, minutes):
    written = instant.astimezone(timezone(timedelta(minutes=minutes)))
    assert parse(written.isoformat(), zone) == instant
    assert parse(instant.isoformat().replace("+00:00", "Z"), zone) == instant


def test_examples_of_the_issue():
    assert parse("2026-07-01T23:30:00", "Europe/London").isoformat() == \
        "2026-07-01T23:30:00+01:00"
    assert parse("2026-07-01T23:30:00", None).isoformat() == "2026-07-01T23:30:00+00:00"
    with pytest.raises(TimeRefused, match=r"2026-10-25T01:30:00\+01:00 \(BST.*"
                       r"2026-10-25T01:30:00\+00:00 \(GMT"):
        parse("2026-10-25T01:30:00", "Europe/London")
    with pytest.raises(TimeRefused, match=r"does not exist.*2026-03-29T01:30:00\+00:00.*"
                       r"2026-03-29T01:30:00\+01:00"):
        parse("2026-03-29T01:30:00", "Europe/London")
    with pytest.raises(TimeRefused, match="not ISO 8601"):
        parse("yesterday", "Europe/London")
