"""The root runner's launcher (runner/sandbox/launcher.py): every sandbox starts as the
sandbox user alone (ids, groups, capabilities), and the runner itself keeps its own identity
and its own view of the file system, in every thread, before, during and after runs."""

import os
import threading
import time

import pytest
from sandbox_kit import new_marker, run_parallel, sandbox_pids_with
from stepsmith.runner.sandbox import identity, run_step, run_unvalidated

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the launcher applies to a root runner")

SPIN = ("import time\ndef f(connections):\n    t = time.monotonic()\n"
        "    while time.monotonic() - t < 1.0:\n        pass\n    return 1\n")


def _status(pid: int) -> dict[str, list[str]]:
    with open(f"/proc/{pid}/status") as f:
        return {k: v.split() for k, _, v in (ln.partition(":") for ln in f)}


def _threads_ids() -> dict[int, tuple]:
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            st = _status(int(tid))
        except OSError:
            continue  # ended meanwhile
        out[int(tid)] = (tuple(st["Uid"]), tuple(st["Gid"]), tuple(st.get("Groups", [])))
    return out


@as_root
def test_sandbox_runs_with_the_sandbox_users_ids_no_groups_no_capabilities():
    uid, gid = identity.sandbox_user()
    marker = new_marker()
    box = {}
    th = threading.Thread(target=lambda: box.setdefault("r", run_unvalidated(
        SPIN, "f", {}, connections={"probe": marker})))
    th.start()
    seen = []
    deadline = time.monotonic() + 4
    while time.monotonic() < deadline and not seen:
        for pid in sandbox_pids_with(marker):
            try:
                seen.append(_status(pid))
            except OSError:
                continue
        time.sleep(0.02)
    th.join()
    assert box["r"].status == "ok", box["r"]
    assert seen, "the sandbox process was not found on the host"
    for st in seen:
        assert st["Uid"] == [str(uid)] * 4, st["Uid"]  # real, effective, saved, fs
        assert st["Gid"] == [str(gid)] * 4, st["Gid"]
        assert st.get("Groups", []) == [], st.get("Groups")
        for cap in ("CapPrm", "CapEff", "CapAmb"):
            assert int(st[cap][0], 16) == 0, (cap, st[cap])


@as_root
def test_runner_keeps_its_identity_and_file_system_view_in_every_thread():
    before_ids = (os.getresuid(), os.getresgid(), sorted(os.getgroups()))
    with open("/proc/self/mountinfo") as f:
        before_mounts = f.read()
    before_home = sorted(os.listdir(os.path.expanduser("~")))
    during: list = []

    def watch():  # the runner's threads, sampled while sandboxes start
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            during.append(_threads_ids())
            time.sleep(0.005)

    w = threading.Thread(target=watch)
    w.start()
    results = run_parallel([lambda: run_step("def f(x):\n    return x + 1\n", "f", {"x": 1})
                            for _ in range(12)])
    w.join()
    assert [r.output for r in results] == [2] * 12, [r.message for r in results]
    assert (os.getresuid(), os.getresgid(), sorted(os.getgroups())) == before_ids
    with open("/proc/self/mountinfo") as f:
        assert f.read() == before_mounts
    assert sorted(os.listdir(os.path.expanduser("~"))) == before_home
    # between starts every thread, the launcher's included, is root again; a thread holds
    # the sandbox user's ids only while it starts one (a sample may catch that moment)
    after = _threads_ids()
    assert all(u == ("0",) * 4 and g == ("0",) * 4 for u, g, _ in after.values()), after
    assert during
    uid = str(identity.sandbox_user()[0])
    for sample in during:
        for u, _, _ in sample.values():
            assert u in (("0",) * 4, (uid, uid, "0", uid)), u  # never the sandbox user alone
