"""Sandboxes started ahead of demand (sandbox/spares.py, issue 12 item 5): a run on a spare is
the same run as on a fresh sandbox (pinned clock, seed, connections, trace), each spare runs
exactly one invocation and is gone afterwards, and nothing of the pool outlives `disable`."""

from __future__ import annotations

import threading

import pytest
from sandbox_kit import alive
from stepsmith.runner.sandbox import Limits, cmdline, process, run_step, spares

CLOCK = '''from datetime import UTC, date, datetime


def f(connections, n):
    stamp = datetime.now().isoformat()
    return {"now": stamp, "today": date.today().isoformat(),
            "t": datetime.now(UTC).timestamp(), "aliases": sorted(connections), "n": n}
'''
AT = "2026-12-01T07:00:00+00:00"



@pytest.fixture
def pool():
    p = spares.enable(1)
    assert p.wait_ready(30), "no spare started"
    yield p
    spares.disable()


def _json(res):
    d = res.to_json()
    d.pop("duration_ms", None)
    d.pop("cpu_ms", None)
    return d


def test_a_run_on_a_spare_is_the_run_on_a_fresh_sandbox(pool):
    kw = {"evaluation_time": AT, "seed": 3, "connections": {"xero": "s3cret"},
          "trace": "values"}
    (spare_pid,) = pool.pids()
    on_spare = run_step(CLOCK, "f", {"n": 5}, **kw)
    assert not alive(spare_pid)  # it ran this one invocation, and was torn down
    spares.disable()
    fresh = run_step(CLOCK, "f", {"n": 5}, **kw)
    assert on_spare.status == "ok", on_spare.message
    assert on_spare.output["now"] == "2026-12-01T07:00:00"
    assert on_spare.output["t"] == 1796108400.0 and on_spare.output["aliases"] == ["xero"]
    assert _json(on_spare) == _json(fresh)


@pytest.mark.parametrize("spare", [True, False])
def test_a_validated_run_never_shows_its_credential_on_the_host(spare):
    # its connections' variables travel in the request (stdin), set by the harness: neither
    # bwrap's nor the interpreter's /proc environ or command line holds them
    from sandbox_kit import new_marker, sandbox_pids_with

    if spare:
        assert spares.enable(1).wait_ready(30)
    secret = "tok-" + new_marker()
    group = process.Group()
    out = {}

    def run():
        with process.joined(group):
            out["res"] = run_step("def f(connections):\n    while True:\n        pass\n", "f",
                                  {}, connections={"xero": secret},
                                  limits=Limits(cpu_seconds=60, wall_seconds=60))

    t = threading.Thread(target=run)
    t.start()
    try:
        while not group.pids() and t.is_alive():
            threading.Event().wait(0.01)
        threading.Event().wait(0.3)  # well into the step's loop
        running = group.pids()
        found = sandbox_pids_with(secret)
        assert running and group.pids() == running  # scanned while it ran
        assert found == []
    finally:
        group.kill()
        t.join(30)
        spares.disable()
    assert out["res"].status != "ok"


def test_each_spare_runs_exactly_one_invocation(pool):
    seen = []
    for x in range(3):
        assert pool.wait_ready(30)
        (pid,) = pool.pids()
        assert pid not in seen
        seen.append(pid)
        res = run_step("def step(x):\n    return x + 1\n", "step", {"x": x})
        assert res.status == "ok" and res.output == x + 1
        assert not alive(pid)
    assert pool.wait_ready(30) and pool.pids()[0] not in seen


def test_the_code_check_still_refuses_inside_a_spare(pool):
    # the parent's validation skipped (as `_execute(validate=True)` alone does): the harness
    # in the spare refuses on its own
    from stepsmith.runner import sandbox

    (pid,) = pool.pids()
    res = sandbox._execute("import os\ndef f():\n    return 1\n", "f", {}, filename="s.py",
                           validate=True, limits=Limits())
    assert res.status == "refused" and res.problems[0].code == "SS101"
    assert not alive(pid)  # it was the spare that refused


def test_a_spare_run_is_killed_by_its_group_and_leaves_nothing(pool):
    group = process.Group()
    out = {}

    def run():
        with process.joined(group):
            out["res"] = run_step("def f():\n    while True:\n        pass\n", "f", {},
                                  limits=Limits(cpu_seconds=60, wall_seconds=60))

    (spare_pid,) = pool.pids()
    t = threading.Thread(target=run)
    t.start()
    while spare_pid not in group.pids() and t.is_alive():
        threading.Event().wait(0.01)
    group.kill()
    t.join(30)
    assert not t.is_alive()
    assert out["res"].status != "ok"
    assert not alive(spare_pid) and group.pids() == []


def test_wall_limit_on_a_spare(pool):
    (pid,) = pool.pids()
    res = run_step("def f():\n    while True:\n        pass\n", "f", {},
                   limits=Limits(cpu_seconds=60, wall_seconds=0.5))
    assert res.status == "wall_limit" and not alive(pid)


def test_disable_leaves_no_spare_behind():
    p = spares.enable(2)
    assert p.wait_ready(30)
    pids = p.pids()
    assert len(pids) == 2 and all(alive(x) for x in pids)
    spares.disable()
    assert spares.current() is None
    assert not any(alive(x) for x in pids)


def test_memory_addresses_are_the_same_on_a_spare_and_a_fresh_sandbox(pool):
    if not cmdline.layout()["prefix"]:
        pytest.fail("setarch is needed here (address randomisation off)")
    src = "def f(x):\n    return [repr(lambda: 0), hash(object()), repr(iter([x]))]\n"
    (pid,) = pool.pids()
    on_spare = run_step(src, "f", {"x": 1}, connections={"xero": "s1"})
    assert not alive(pid)
    spares.disable()
    fresh = run_step(src, "f", {"x": 1}, connections={"xero": "s1"})
    assert on_spare.status == "ok" and on_spare.output == fresh.output


def test_no_spare_starts_while_held_and_the_refill_resumes_after(pool):
    """`held()` (the editor's mutants refresh): a spare taken inside it is not replaced until
    the block ends."""
    import time

    taken = pool.take()
    assert taken is not None
    process.discard(taken)
    with spares.held():
        time.sleep(10 * spares.QUIET_S)  # many times what a refill waits for
        assert pool.pids() == []
    assert pool.wait_ready(30) and len(pool.pids()) == 1


@pytest.mark.parametrize("on_spare", [True, False])
def test_a_spare_run_has_the_limits_of_a_fresh_one(on_spare):
    """A spare loads what the limits need while it waits (`resource`), and sets them only
    once its request is in: the request's own limits, as in a fresh sandbox."""
    pid = None
    if on_spare:
        pool = spares.enable(1)
        assert pool.wait_ready(30), "no spare started"
        (pid,) = pool.pids()
    try:
        grab = "def f():\n    return len(bytearray(200 * 1024 * 1024))\n"
        res = run_step(grab, "f", {}, limits=Limits(memory_bytes=128 * 1024 * 1024))
        assert res.status == "memory_limit", res
        assert pid is None or not alive(pid)  # that run was the spare's
        assert run_step(grab, "f", {}).output == 200 * 1024 * 1024  # the default: 512 MiB
        spin = "def f():\n    n = 0\n    while True:\n        n += 1\n"
        res = run_step(spin, "f", {}, limits=Limits(cpu_seconds=1, wall_seconds=30))
        assert res.status == "cpu_limit", res
    finally:
        spares.disable()
