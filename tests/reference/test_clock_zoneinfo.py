"""Every naive local-time operation a step can make
inside the sandbox gives what Python's `zoneinfo` gives for the workflow's zone at that instant,
DST edges included (SPEC "Determinism"; docs/clock.md says what agrees with what).

One sandbox run per generated example: the pinned evaluation time (now(), today(), fold,
tzname, ...) plus a batch of other instants and wall times evaluated by the same step, all
compared with the host's zoneinfo. Instants are drawn near the zones' real transitions
(found from zoneinfo itself) and across 1900-2100.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from stepsmith.runner.sandbox import run_step, run_unvalidated

pytestmark = pytest.mark.usefixtures("sandbox")

#: London and New York (DST, one hour), Sydney (southern DST), Adelaide (half-hour offset
#: with DST), Kolkata (half-hour, no DST), UTC.
ZONES = ("Europe/London", "America/New_York", "Australia/Sydney", "Australia/Adelaide",
         "Asia/Kolkata", "UTC")
LO, HI = -2208988800, 4102444800  # 1900-01-01 .. 2100-01-01 UTC
COUNTS: dict[str, int] = {}  # comparisons made, per operation (printed with -s)

PROBE = '''
import datetime


def probe(instants, walls):
    D = datetime.datetime

    def aware(a):
        return [a.isoformat(), a.tzname(), a.strftime("%Z %z"), a.utcoffset().total_seconds()]

    n = datetime.datetime.now()
    out = {"now": [n.isoformat(), n.fold, n.timestamp(), n.strftime("%Y-%m-%d %H:%M:%S")]
                  + aware(n.astimezone()),
           "today": [datetime.date.today().isoformat(), datetime.datetime.today().isoformat(), datetime.datetime.today().fold],
           "utcnow": datetime.datetime.utcnow().isoformat(),
           "now_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
           "midnight": D.combine(datetime.date.today(), datetime.time()).timestamp(),
           "instants": [], "walls": []}
    for ts in instants:
        loc = D.fromtimestamp(ts)
        mid = D.combine(loc.date(), datetime.time())
        out["instants"].append([loc.isoformat(), loc.fold, loc.timestamp(), mid.timestamp(),
                                datetime.date.fromtimestamp(ts).isoformat()]
                               + aware(loc.astimezone())
                               + aware(D.fromtimestamp(ts, datetime.timezone.utc).astimezone()))
    for w in walls:
        wall = D(*w[:6], fold=w[6])
        out["walls"].append([wall.timestamp()] + aware(wall.astimezone()))
    return out
'''


def _aware(a: datetime) -> list:
    return [a.isoformat(), a.tzname(), a.strftime("%Z %z"), a.utcoffset().total_seconds()]


def _naive_timestamp(at: datetime) -> float:
    """What CPython's `timestamp()` of a NAIVE local datetime gives for this instant: whole
    seconds, then `+ microsecond / 1e6` in float (datetime.c), which can differ in the last bit
    from the aware path's `total_seconds()` (hypothesis found 1.9999989999999999 vs 1.999999)."""
    return at.replace(microsecond=0).timestamp() + at.microsecond / 1e6


def _local(ts: int, z: ZoneInfo) -> datetime:
    return datetime.fromtimestamp(ts, z)


def reference(zone: str, at: datetime, instants: list[int], walls: list[list[int]]) -> dict:
    """The same operations through zoneinfo on the host (no TZ, no libfaketime)."""
    z = ZoneInfo(zone)
    n = at.astimezone(z)
    naive = n.replace(tzinfo=None)
    day = n.date()
    out = {"now": [naive.isoformat(), n.fold, _naive_timestamp(at), n.strftime("%Y-%m-%d %H:%M:%S")]
                  + _aware(n),
           "today": [day.isoformat(), naive.isoformat(), n.fold],
           "utcnow": at.astimezone(UTC).replace(tzinfo=None).isoformat(),
           "now_utc": at.astimezone(UTC).isoformat(),
           "midnight": datetime.combine(day, time(), tzinfo=z).timestamp(),
           "instants": [], "walls": []}
    for ts in instants:
        loc = _local(ts, z)
        mid = datetime.combine(loc.date(), time(), tzinfo=z)
        out["instants"].append([loc.replace(tzinfo=None).isoformat(), loc.fold, float(ts),
                                mid.timestamp(), loc.date().isoformat()]
                               + _aware(loc) + _aware(loc))
    for w in walls:
        wall = datetime(*w[:6], fold=w[6], tzinfo=z)
        # zoneinfo's answer for the wall time: the instant, then that instant in the zone
        out["walls"].append([wall.timestamp()] + _aware(wall.astimezone(UTC).astimezone(z)))
    return out


def exists(w: list[int], zone: str) -> bool:
    """The wall time is a real local time (not skipped by a DST gap)."""
    z = ZoneInfo(zone)
    wall = datetime(*w[:6], fold=w[6], tzinfo=z)
    return wall.astimezone(UTC).astimezone(z).replace(tzinfo=None) == wall.replace(tzinfo=None)


@functools.cache
def transitions(zone: str) -> tuple[int, ...]:
    """Every UTC offset change of `zone` in 1900-2100, to the second (zoneinfo's own data)."""
    z = ZoneInfo(zone)
    off = functools.partial(lambda t: _local(t, z).utcoffset())
    out = []
    step = 6 * 86400
    t, prev = LO, off(LO)
    while t < HI:
        nxt = min(t + step, HI)
        cur = off(nxt)
        if cur != prev:
            lo, hi = t, nxt
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if off(mid) == prev else (lo, mid)
            out.append(hi)
        t, prev = nxt, cur
    return tuple(out)


@st.composite
def instant(draw, zone: str) -> int:
    edges = transitions(zone)
    if edges and draw(st.booleans()):
        near = draw(st.sampled_from(edges))
        # the repeated or skipped hour and around it, to the second
        return near + draw(st.integers(-3 * 3600, 3 * 3600))
    return draw(st.integers(LO, HI))


@st.composite
def case(draw):
    zone = draw(st.sampled_from(ZONES))
    at = draw(instant(zone))
    micro = draw(st.sampled_from([0, 0, 1, 500000, 999999]))
    instants = draw(st.lists(instant(zone), min_size=1, max_size=12))
    walls = []
    z = ZoneInfo(zone)
    for ts in draw(st.lists(instant(zone), max_size=8)):
        w = _local(ts, z).replace(tzinfo=None) + timedelta(
            minutes=draw(st.sampled_from([0, 15, 30, 45, 60, -30, -60])))
        walls.append([w.year, w.month, w.day, w.hour, w.minute, w.second, draw(st.integers(0, 1))])
    return zone, datetime.fromtimestamp(at, UTC).replace(microsecond=micro), instants, walls


def check(zone: str, at: datetime, instants: list[int], walls: list[list[int]]) -> None:
    res = run_step(PROBE, "probe", {"instants": instants, "walls": walls},
                   evaluation_time=at.isoformat(), timezone=zone)
    assert res.status == "ok", (res.status, res.message, res.error)
    got, want = res.output, reference(zone, at, instants, walls)
    for key in ("now", "today", "utcnow", "now_utc", "midnight"):
        assert got[key] == want[key], (zone, at, key)
        COUNTS[key] = COUNTS.get(key, 0) + 1
    for ts, g, w in zip(instants, got["instants"], want["instants"], strict=True):
        assert g == w, (zone, ts)
        COUNTS["instant"] = COUNTS.get("instant", 0) + 1
    for wall, g, w in zip(walls, got["walls"], want["walls"], strict=True):
        # timestamp() always agrees; astimezone() of a wall time a DST gap skips is CPython's
        # own answer (it differs from its timestamp(), with or without stepsmith): not compared
        n = len(g) if exists(wall, zone) else 1
        assert g[:n] == w[:n], (zone, wall)
        COUNTS["wall" if n > 1 else "gap wall (timestamp only)"] = COUNTS.get(
            "wall" if n > 1 else "gap wall (timestamp only)", 0) + 1


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    print("\nclock vs zoneinfo, comparisons:", dict(sorted(COUNTS.items())))


# London: 2026-10-25 01:30 happens twice (BST then GMT); New York's repeated 01:30 in November;
# Sydney's repeated 02:30 in April; Adelaide (+10:30/+09:30); Kolkata (+05:30, no DST)
@example(("Europe/London", datetime(2026, 10, 25, 1, 30, tzinfo=UTC), [1792888200, 1792891800],
          [[2026, 10, 25, 1, 30, 0, 0], [2026, 10, 25, 1, 30, 0, 1], [2026, 3, 29, 1, 30, 0, 0]]))
@example(("Europe/London", datetime(2026, 7, 1, 23, 30, tzinfo=UTC), [1782948600], []))
@example(("America/New_York", datetime(2026, 11, 1, 6, 30, tzinfo=UTC), [1793511000], []))
@example(("Australia/Sydney", datetime(2026, 4, 4, 16, 30, tzinfo=UTC), [1775320200], []))
@example(("Australia/Adelaide", datetime(2026, 12, 1, 13, 15, tzinfo=UTC), [1796130900], []))
@example(("Asia/Kolkata", datetime(2026, 12, 1, 18, 45, tzinfo=UTC), [0, -1], []))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case())
def test_naive_local_time_agrees_with_zoneinfo(c):
    check(*c)


@pytest.mark.parametrize("zone", ZONES)
def test_every_transition_of_the_pinned_year(zone):
    """Each zone's transitions in 2026 (and the instants one second either side)."""
    lo, hi = datetime(2026, 1, 1, tzinfo=UTC).timestamp(), datetime(2027, 1, 1, tzinfo=UTC).timestamp()
    edges = [t for t in transitions(zone) if lo <= t < hi]
    instants = [t + d for t in edges for d in (-3601, -1, 0, 1, 1799, 3599, 3600)] or [int(lo)]
    at = datetime.fromtimestamp(edges[-1] - 1 if edges else lo, UTC)
    check(zone, at, instants, [])


OS_LEVEL = '''
import datetime, time
def f():
    real = datetime.datetime.mro()[1]
    n = real.now()
    lt = time.localtime()
    return {"real_now": [n.isoformat(), n.fold], "tzname": list(time.tzname),
            "localtime": [list(lt)[:6], lt.tm_isdst, lt.tm_zone, lt.tm_gmtoff],
            "strftime": time.strftime("%Y-%m-%d %H:%M:%S %Z %z"), "time": time.time(),
            "mktime": time.mktime(lt)}
'''


@pytest.mark.parametrize("zone,at", [
    ("Europe/London", "2026-10-25T01:30:00+00:00"),  # the second 01:30 (GMT)
    ("Europe/London", "2026-10-25T00:30:00+00:00"),  # the first 01:30 (BST)
    ("America/New_York", "2026-03-08T07:30:00+00:00"),
    ("Australia/Adelaide", "2026-04-04T16:45:00+00:00"),
])
def test_os_level_local_time_is_the_zone_too(zone, at):
    """Below the facade (real builtins, the real datetime class through mro, `time`): the
    sandbox's own local time is the zone, and libfaketime pins the same instant in it."""
    res = run_unvalidated(OS_LEVEL, "f", {}, evaluation_time=at, timezone=zone)
    assert res.status == "ok", (res.message, res.error)
    out = res.output
    inst = datetime.fromisoformat(at)
    loc = inst.astimezone(ZoneInfo(zone))
    assert out["time"] == inst.timestamp() and out["mktime"] == inst.timestamp()
    assert out["real_now"] == [loc.replace(tzinfo=None).isoformat(), loc.fold]
    off = loc.utcoffset().total_seconds()
    assert out["localtime"] == [list(loc.timetuple())[:6], int(bool(loc.dst())), loc.tzname(), off]
    assert out["strftime"] == loc.strftime("%Y-%m-%d %H:%M:%S %Z %z")


def test_unknown_zone_is_refused_before_any_sandbox():
    res = run_step("def f():\n    return 1\n", "f", {}, timezone="Europe/Lundon")
    assert res.status == "unavailable" and "unknown timezone 'Europe/Lundon'" in res.message
    res = run_step("def f():\n    return 1\n", "f", {}, timezone="../../etc/passwd")
    assert res.status == "unavailable" and "unknown timezone" in res.message


def test_no_pinned_time_is_still_an_error_in_any_zone():
    res = run_step("import datetime\ndef f():\n    return datetime.datetime.now()\n", "f", {},
                   timezone="Europe/London")
    assert res.status == "error" and res.error["type"] == "PinnedClockError"


def test_a_spare_started_before_its_request_gets_the_zone():
    """A spare (sandbox/spares.py) starts before its zone is known: the harness sets TZ from
    the request and re-reads it (tzset), so the fold of a repeated hour is still right."""
    from stepsmith.runner.sandbox import spares

    pool = spares.enable(1)
    try:
        for at in ("2026-10-25T00:30:00+00:00", "2026-10-25T01:30:00+00:00"):
            assert pool.wait_ready(30), "no spare started"
            pid = pool.pids()[0]
            check("Europe/London", datetime.fromisoformat(at), [1792888200, 1792891800], [])
            assert pid not in pool.pids()  # the run took the spare
    finally:
        spares.disable()


def test_the_zone_a_spare_sets_while_it_waits_is_the_default_one():
    """A spare sets TZ to the zone of a request that names none before its request comes
    (inside.py `_DEFAULT_ZONE`), so such a run re-reads nothing: the two must agree, or every
    run pays the tzset again (still right: the request's zone is set whenever it differs)."""
    import re

    from stepsmith.runner.sandbox.request import tz_variable

    inside = (Path(__file__).resolve().parents[2] / "runner/harness/inside.py").read_text()
    (default,) = re.findall(r'^_DEFAULT_ZONE = b"(.*)"$', inside, re.M)
    assert default == tz_variable(None, None)


def test_a_run_after_the_default_zone_is_in_its_own_zone_and_back():
    """Fresh sandboxes in turn: UTC (the zone already set while waiting), London, UTC again."""
    src = "import datetime\ndef f():\n    return datetime.datetime.now().isoformat()\n"
    at = "2026-07-01T12:00:00+00:00"
    got = [run_step(src, "f", {}, evaluation_time=at, timezone=tz).output
           for tz in (None, "Europe/London", "UTC")]
    assert got == ["2026-07-01T12:00:00", "2026-07-01T13:00:00", "2026-07-01T12:00:00"]


@pytest.mark.parametrize("at", ["1960-05-01T12:00:00+00:00", "1969-12-31T23:59:59+00:00"])
def test_an_instant_before_1970_never_reaches_the_host_clock(at):
    """libfaketime cannot take a negative epoch time (it read "-1" as one second before the
    REAL now): the OS clock is then the epoch; the facade still gives the instant."""
    src = ("import time, datetime\ndef f():\n    return [time.time(), "
           "datetime.datetime.mro()[1].utcnow().isoformat(), datetime.datetime.utcnow().isoformat()]\n")
    res = run_unvalidated(src, "f", {}, evaluation_time=at, timezone="Europe/London")
    assert res.status == "ok", res.message
    inst = datetime.fromisoformat(at)
    assert res.output == [0.0, "1970-01-01T00:00:00",
                          inst.astimezone(UTC).replace(tzinfo=None).isoformat()]


def test_the_sandbox_tz_variable():
    from stepsmith.runner.sandbox.cmdline import SANDBOX_ZONEINFO
    from stepsmith.runner.sandbox.request import ZoneUnavailable, tz_variable

    assert tz_variable(None, None) == tz_variable("UTC", None) == "UTC0"  # needs no database
    assert tz_variable("Asia/Kolkata", "/x") == f":{SANDBOX_ZONEINFO}/Asia/Kolkata"
    for bad in ("Europe/Lundon", "/etc/passwd", "Europe/../../etc/passwd"):
        with pytest.raises(ZoneUnavailable):
            tz_variable(bad, "/x")
    with pytest.raises(ZoneUnavailable, match="apt-get install tzdata"):
        tz_variable("Europe/London", None)
