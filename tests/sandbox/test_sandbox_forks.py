"""The fork server (sandbox/forks.py, harness/forkserver.py): many runs of a step in one
sandbox, each a forked child with a `test` run's limits and the forbidding seccomp filter,
none seeing what another did."""

import pytest
from stepsmith.runner import sandbox
from stepsmith.runner.sandbox import forks, prepare_step
from stepsmith.runner.sandbox.result import Limits

pytestmark = pytest.mark.usefixtures("sandbox")

SHORT = Limits(cpu_seconds=1, wall_seconds=3.0)


def _runs(*sources, limits=SHORT, inputs=None):
    return [prepare_step(s, "f", inputs or {"x": 1}, limits=limits) for s in sources]


def _count_sandboxes(monkeypatch) -> list:
    """Every sandbox started (bwrap processes supervised) during the test."""
    from stepsmith.runner.sandbox import process

    started = []
    real = process.supervise

    def counting(cmd, *a, **kw):
        started.append(cmd)
        return real(cmd, *a, **kw)

    monkeypatch.setattr(process, "supervise", counting)
    return started


def test_many_runs_share_one_sandbox_and_answer_in_order(monkeypatch):
    started = _count_sandboxes(monkeypatch)
    runs = _runs(*[f"def f(x):\n    return x + {n}\n" for n in range(5)])
    results = forks.run_forked(runs)
    assert [(r.status, r.output) for r in results] == [("ok", 1 + n) for n in range(5)]
    assert len(started) == 1 and forks.FORK_BOOTSTRAP in started[0]


def test_a_looping_run_is_stopped_by_its_cpu_limit_and_the_next_runs(monkeypatch):
    loop = "def f(x):\n    while x > 0:\n        x = x + 1\n    return x\n"
    started = _count_sandboxes(monkeypatch)
    results = forks.run_forked(_runs(loop, "def f(x):\n    return x\n",
                                     limits=Limits(cpu_seconds=1, wall_seconds=20.0)))
    assert [r.status for r in results] == ["cpu_limit", "ok"]
    assert results[1].output == 1 and len(started) == 1


def test_the_wall_limit_of_a_run_is_enforced_by_the_server(monkeypatch):
    # more CPU than wall time: only the server's deadline can stop it
    loop = "def f(x):\n    while x > 0:\n        x = x + 1\n    return x\n"
    limits = Limits(cpu_seconds=30, wall_seconds=1.0)
    started = _count_sandboxes(monkeypatch)
    results = forks.run_forked(_runs(loop, "def f(x):\n    return 2\n", limits=limits))
    assert [r.status for r in results] == ["wall_limit", "ok"]
    assert len(started) == 1  # answered by the server, not by a fresh sandbox


def test_a_run_that_allocates_meets_the_memory_limit():
    hog = "def f(x):\n    return len('a' * (10 ** 9))\n"
    results = forks.run_forked(_runs(hog, "def f(x):\n    return 3\n"))
    assert [r.status for r in results] == ["memory_limit", "ok"]


def test_an_oversized_result_is_stopped_by_the_output_cap():
    big = "def f(x):\n    return 'a' * 5000\n"
    limits = Limits(output_bytes=1000)
    results = forks.run_forked(_runs(big, "def f(x):\n    return 4\n", limits=limits))
    assert [r.status for r in results] == ["output_limit", "ok"]


def test_nothing_a_step_does_to_its_state_reaches_the_next_run():
    # a mutable default (a cache that lives as long as the function) and the decimal
    # context: each run starts from the server's state, never from the previous child's
    step = (
        "from decimal import Decimal, getcontext\n"
        "def f(x, seen=[]):\n"
        "    seen.append(x)\n"
        "    third = str(Decimal(1) / Decimal(3))\n"
        "    getcontext().prec = 3\n"
        "    return [len(seen), third]\n"
    )
    results = forks.run_forked(_runs(*[step] * 3))
    assert [(r.status, r.output) for r in results] == [
        ("ok", [1, "0.3333333333333333333333333333"])] * 3


def _unvalidated(source: str):
    """TEST ONLY: a prepared run of arbitrary Python (no validator, real builtins), as
    `run_unvalidated` prepares it, sent to the fork server: what hostile code in a child can
    do there."""
    p = sandbox.prepare(source, "f", {}, filename="step.py", validate=False, limits=SHORT)
    p.framed = True  # the fork server's request format (the harness skips validation)
    return p


def test_module_state_changed_by_full_python_does_not_reach_the_next_run():
    """Even code outside the dialect (a module-level cache, a global of an imported module,
    a builtin replaced) changes only its own child."""
    step = (
        "import os, builtins\n"
        "CACHE = []\n"
        "def f():\n"
        "    CACHE.append(1)\n"
        "    before = [getattr(os, 'LEAK', 0), getattr(builtins, 'LEAK', 0)]\n"
        "    os.LEAK = getattr(os, 'LEAK', 0) + 1\n"
        "    builtins.LEAK = getattr(builtins, 'LEAK', 0) + 1\n"
        "    return [len(CACHE), *before]\n"
    )
    results = forks.run_forked([_unvalidated(step) for _ in range(3)])
    assert [(r.status, r.output) for r in results] == [("ok", [1, 0, 0])] * 3


def test_a_child_cannot_fork_start_a_thread_or_stop_the_server():
    hostile = (
        "def f():\n"
        "    import os, threading\n"
        "    out = {}\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "        if pid == 0:\n"
        "            os._exit(0)\n"
        "        out['fork'] = 'forked'\n"
        "    except OSError as exc:\n"
        "        out['fork'] = exc.errno\n"
        "    try:\n"
        "        threading.Thread(target=print).start()\n"
        "        out['thread'] = 'started'\n"
        "    except RuntimeError as exc:\n"
        "        out['thread'] = 'refused'\n"
        "    os.kill(1, 9)\n"
        "    os.kill(os.getppid(), 9)\n"
        "    out['parent'] = os.getppid()\n"
        "    return out\n"
    )
    plain = "def f():\n    return 'after'\n"
    results = forks.run_forked([_unvalidated(hostile), _unvalidated(plain)])
    assert results[0].status == "ok", results[0].message
    assert results[0].output == {"fork": 1, "thread": "refused", "parent": 1}  # EPERM
    assert (results[1].status, results[1].output) == ("ok", "after")  # the server lived


def test_a_child_holds_no_descriptor_of_the_server_channel_or_its_stdin(monkeypatch):
    probe = (
        "def f():\n"
        "    import os\n"
        "    out = []\n"
        "    for n in sorted(int(n) for n in os.listdir('/proc/self/fd')):\n"
        "        try:\n"
        "            out.append(os.readlink(f'/proc/self/fd/{n}'))\n"
        "        except OSError:\n"
        "            pass\n"
        "    return out\n"
    )
    started = _count_sandboxes(monkeypatch)
    results = forks.run_forked([_unvalidated(probe), _unvalidated(probe)])
    assert {r.status for r in results} == {"ok"}, results[0].message
    assert len(started) == 1  # the server's children answered
    for r in results:
        # stdin/stdout/stderr at /dev/null, the result pipe and the /dev/null the harness
        # keeps: no other pipe (the server's channel or stdin) and no memfd
        pipes = [t for t in r.output if t.startswith("pipe:")]
        assert len(pipes) == 1, r.output
        assert not [t for t in r.output if "memfd" in t], r.output


def test_a_child_flooding_its_result_pipe_is_stopped_at_the_output_cap(monkeypatch):
    flood = (
        "def f():\n"
        "    import os\n"
        "    chunk = b'x' * 65536\n"
        "    for _ in range(2000):\n"
        "        for fd in range(3, 12):\n"
        "            try:\n"
        "                os.write(fd, chunk)\n"
        "            except OSError:\n"
        "                pass\n"
        "    return 'done'\n"
    )
    started = _count_sandboxes(monkeypatch)
    results = forks.run_forked([_unvalidated(flood), _unvalidated("def f():\n    return 7\n")])
    assert [r.status for r in results] == ["output_limit", "ok"]
    assert len(started) == 1  # the server stopped it, not the parent's cap on the sandbox


def test_a_run_the_server_cannot_answer_goes_to_a_fresh_sandbox(monkeypatch):
    """No answer from the server (here: it never starts) is not a verdict: the run is made
    in a fresh sandbox."""
    from stepsmith.runner.sandbox import process

    real = process.supervise
    fresh = []

    def failing(cmd, *a, **kw):
        if forks.FORK_BOOTSTRAP in cmd:
            raise OSError("no fork server here")
        fresh.append(cmd)
        return real(cmd, *a, **kw)

    monkeypatch.setattr(process, "supervise", failing)
    results = forks.run_forked(_runs("def f(x):\n    return 5\n", "def f(x):\n    return 6\n"))
    assert [r.output for r in results] == [5, 6]
    assert len(fresh) == 2


def test_one_fork_server_answers_several_calls(monkeypatch):
    """A server kept for many calls (a mutants run's rounds): each call's runs are answered in
    order, by the one sandbox, and nothing of one call's children reaches the next."""
    started = _count_sandboxes(monkeypatch)
    step = ("from decimal import Decimal, getcontext\n"
            "def f(x):\n"
            "    third = str(Decimal(1) / Decimal(3))\n"
            "    getcontext().prec = 3\n"
            "    return [x, third]\n")
    server = forks.ForkServer(None, ["decimal"])
    try:
        first = server.run(_runs(step, step, inputs={"x": 1}))
        second = server.run(_runs(step, inputs={"x": 2}))
        assert not server.dead
    finally:
        server.close()
    third = "0.3333333333333333333333333333"
    assert [(r.status, r.output) for r in first + second] == [
        ("ok", [1, third]), ("ok", [1, third]), ("ok", [2, third])]
    assert len(started) == 1


def test_the_validator_still_judges_each_child_after_the_server_warmed_it():
    """The server runs the validator once on its first text (a valid step); a later run's
    text that the dialect refuses is still refused in its child, before it runs."""
    valid, refused = _runs("def f(x):\n    return x\n", "def f(x):\n    return x\n")
    # (the parent refuses it before any sandbox: here it reaches the child as sent)
    refused.request["source"] = "import os\ndef f(x):\n    return os.getpid()\n"
    server = forks.ForkServer(None, [])
    try:
        results = server.run([valid, refused])
    finally:
        server.close()
    assert [r.status for r in results] == ["ok", "refused"]
    assert results[1].problems and results[1].problems[0].code.startswith("SS")


def test_a_server_silent_past_a_runs_deadline_is_killed_and_the_run_made_fresh(monkeypatch):
    """The parent gives each answer its run's wall time and a slack: a server that does not
    answer by then (here the slack is made negative, so the server's own wall kill comes
    too late) is killed, that run and the rest are made in fresh sandboxes, and the server
    takes no more runs."""
    loop = "def f(x):\n    while x > 0:\n        x = x + 1\n    return x\n"
    monkeypatch.setattr(forks, "_SLACK", -1.5)
    started = _count_sandboxes(monkeypatch)
    server = forks.ForkServer(None, [])
    try:
        results = server.run(_runs(loop, "def f(x):\n    return 8\n",
                                   limits=Limits(cpu_seconds=30, wall_seconds=2.0)))
        assert server.dead
        after = server.run(_runs("def f(x):\n    return 9\n"))
    finally:
        server.close()
    assert [(r.status, r.output) for r in results + after] == [
        ("wall_limit", None), ("ok", 8), ("ok", 9)]
    assert [forks.FORK_BOOTSTRAP in cmd for cmd in started] == [True, False, False, False]


@pytest.mark.parametrize("given", [True, False], ids=["group-given", "thread-joined"])
def test_a_fork_server_is_killed_with_its_callers_group(given):
    """An editor's cancelled run kills its group: the fork servers it started go with it,
    whether the group is handed in or the starting thread has joined it."""
    import time

    from stepsmith.runner.sandbox import process

    group = process.Group()
    if given:
        server = forks.ForkServer(None, [], group=group)
    else:
        with process.joined(group):
            server = forks.ForkServer(None, [])
    try:
        end = time.monotonic() + 30
        while not group.pids() and time.monotonic() < end:
            time.sleep(0.01)
        pids = group.pids()
        assert len(pids) == 1
        group.kill()
        server._thread.join(30)
        assert server.dead and group.pids() == []
    finally:
        server.close()


def test_an_answer_longer_than_its_run_allows_ends_the_server(monkeypatch):
    """The parent trusts no length the server reports: an answer over its run's cap (here
    every cap is made negative) kills the server, and the run is made in a fresh sandbox."""
    monkeypatch.setattr(forks, "_CHUNK", -10 ** 9)
    started = _count_sandboxes(monkeypatch)
    results = forks.run_forked(_runs("def f(x):\n    return 10\n"))
    assert [(r.status, r.output) for r in results] == [("ok", 10)]
    assert [forks.FORK_BOOTSTRAP in cmd for cmd in started] == [True, False]
