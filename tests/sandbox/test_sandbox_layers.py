"""Each layer of the sandbox holds on its own (runner/sandbox/DESIGN.md): a test per bwrap flag
that another layer would otherwise hide, failing when that one flag is removed.

- `--cap-drop ALL`: bwrap started unprivileged (as every run is: a root runner starts it as the
  `stepsmith-sandbox` user) already leaves the step no capability, so the flag only shows when
  bwrap runs as host root: then, without it, the step keeps the full bounding set (a file
  capability on a binary would give them back). The test starts the very command line as
  root, the host-identity layer taken away.
- `--new-session`: the step is the leader of a session of its own (pid 1 of its namespace), so
  no terminal the runner has is its controlling terminal (TIOCSTI cannot type into it).
- the parent's SIGKILL to the sandbox's pid 1 through its pidfd (process.py): pid 1 is not in
  bwrap's process group (its own session), so the group kill never reaches it, and
  `--die-with-parent` would hide the missing kill; without that flag, a step that outlives
  its wall deadline is still gone when the call returns.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from sandbox_kit import new_marker, sandbox_pids_with
from stepsmith.runner.sandbox import Limits, cmdline, run_unvalidated, seccomp

pytestmark = pytest.mark.usefixtures("sandbox")

STATUS = "import os\nprint(open('/proc/self/status').read())\n"


def _caps(status: str) -> dict[str, int]:
    return {k: int(v, 16) for k, v in (ln.split(":\t") for ln in status.splitlines()
                                       if ln.startswith("Cap"))}


def test_cap_drop_all_holds_when_bwrap_itself_runs_as_root():
    if os.geteuid() != 0:
        pytest.skip("bwrap runs as root only for a root runner")
    fd = seccomp.memfd_with(seccomp.bpf(False), "stepsmith-seccomp")
    try:
        argv = cmdline.command(live_network=False, faketime_spec="0", seccomp_fd=fd,
                               args_fd=None, bootstrap=STATUS)
        p = subprocess.run(argv, pass_fds=(fd,), capture_output=True, text=True, timeout=60,
                           env={"PATH": "/usr/bin:/bin"}, check=False)
    finally:
        os.close(fd)
    assert p.returncode == 0, p.stderr
    caps = _caps(p.stdout)
    assert set(caps) == {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"}
    assert caps == dict.fromkeys(caps, 0), caps  # the bounding set included


def test_the_step_leads_a_session_of_its_own():
    src = '''
import os
def f():
    try:
        os.setsid()
        again = "new session"
    except PermissionError:
        again = "already a leader"
    return {"pid": os.getpid(), "sid": os.getsid(0), "pgid": os.getpgid(0), "setsid": again}
'''
    res = run_unvalidated(src, "f", {})
    assert res.status == "ok", (res.status, res.message, res.error)
    assert res.output == {"pid": 1, "sid": 1, "pgid": 1, "setsid": "already a leader"}


def test_the_parents_kill_reaches_pid_1_without_the_death_signal(monkeypatch):
    real = cmdline.command

    def command(**kw):
        argv = real(**kw)
        argv.remove("--die-with-parent")  # the other layer, taken away
        return argv

    monkeypatch.setattr(cmdline, "command", command)
    marker = new_marker()
    src = "import os\ndef f():\n    r, w = os.pipe()\n    os.read(r, 1)\n"  # forever
    res = run_unvalidated(src, "f", {}, connections={"probe": marker},
                          limits=Limits(wall_seconds=1.0))
    left = sandbox_pids_with(marker)
    for pid in left:  # (only when the kill failed: leave nothing behind)
        os.kill(pid, 9)
    assert res.status == "wall_limit", res
    assert left == []
