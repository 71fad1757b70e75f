"""The clock BELOW the datetime facade is pinned too, on a spare and on a fresh sandbox
(issue 18 item 5). The facade answers from the request's evaluation time whatever the OS
clock says, so reading only `datetime.now()` cannot see libfaketime: a run whose FAKETIME was
never set (a spare keeps its command line's 1970 placeholder until the harness sets the
request's) would pass. These read `time.time()`, `clock_gettime(CLOCK_REALTIME)` and the real
`datetime` class behind the facade, with full Python (the validator and the restricted
builtins off, so nothing but libfaketime stands between the step and the kernel's clock)."""

from __future__ import annotations

import pytest
from sandbox_kit import alive
from stepsmith.runner import sandbox
from stepsmith.runner.sandbox import Limits, run_unvalidated, spares

AT = "2026-12-01T07:00:00+00:00"
PINNED = 1796108400.0  # AT as a POSIX timestamp

BELOW = '''import time


def f():
    import datetime
    real = type.mro(datetime.datetime)[1]   # the real class behind the facade
    return {"time": time.time(), "realtime": time.clock_gettime(time.CLOCK_REALTIME),
            "real_now": real.now(datetime.UTC).timestamp(), "real_class": real.__module__,
            "facade_now": datetime.datetime.now(datetime.UTC).timestamp()}
'''



def _unvalidated_frames(monkeypatch):
    """Let `_execute` build its framed (validated) request exactly as product code does,
    the pinned time included, then turn the validator and the restricted builtins off in
    that request: the same run, on a spare or fresh, with full Python inside."""
    from stepsmith.runner.sandbox import prepared

    real_frame = prepared.frame
    seen = []

    def frame(request):
        request = dict(request, validate=False, restricted=False)
        seen.append(request)
        return real_frame(request)

    monkeypatch.setattr(prepared, "frame", frame)
    return seen


def _check(res):
    assert res.status == "ok", res.message
    out = res.output
    assert out["real_class"] == "datetime"  # really the class below the facade
    assert out["facade_now"] == PINNED
    assert out["time"] == PINNED
    assert out["realtime"] == PINNED
    assert out["real_now"] == PINNED


def test_the_os_clock_of_a_spare_is_the_pinned_instant(monkeypatch):
    seen = _unvalidated_frames(monkeypatch)
    pool = spares.enable(1)
    try:
        assert pool.wait_ready(30), "no spare started"
        (pid,) = pool.pids()
        res = sandbox._execute(BELOW, "f", {}, filename="step.py", evaluation_time=AT,
                               validate=True, limits=Limits())
        assert not alive(pid), "the run did not take the spare"
    finally:
        spares.disable()
    assert len(seen) == 1 and seen[0]["validate"] is False
    _check(res)


def test_the_os_clock_of_a_fresh_framed_sandbox_is_the_pinned_instant(monkeypatch):
    seen = _unvalidated_frames(monkeypatch)
    assert spares.current() is None
    res = sandbox._execute(BELOW, "f", {}, filename="step.py", evaluation_time=AT,
                           validate=True, limits=Limits())
    assert len(seen) == 1
    _check(res)


def test_the_os_clock_of_an_unvalidated_run_is_the_pinned_instant():
    _check(run_unvalidated(BELOW, "f", {}, evaluation_time=AT))


@pytest.mark.parametrize("spare", [True, False])
def test_a_run_without_a_pinned_time_reads_1970_below_the_facade(monkeypatch, spare):
    # no evaluation time: the OS clock is the epoch, never the host's clock
    _unvalidated_frames(monkeypatch)
    src = "import time\n\n\ndef f():\n    return time.time()\n"
    if spare:
        assert spares.enable(1).wait_ready(30)
    try:
        res = sandbox._execute(src, "f", {}, filename="step.py", validate=True,
                               limits=Limits())
    finally:
        spares.disable()
    assert res.status == "ok", res.message
    assert res.output == 0.0
