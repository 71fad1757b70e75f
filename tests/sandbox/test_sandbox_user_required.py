"""The root runner's launcher thread holds the sandbox user's uid while it
starts bwrap, so any host process of that uid may signal it (SIGKILL kills the whole runner).
With the shared `nobody` (65534) that is every nobody daemon on the machine. A root runner
therefore requires the dedicated `stepsmith-sandbox` user (scripts/setup creates it), whose
only processes are sandboxes (each in a pid namespace of its own: they cannot address the
runner), and refuses to start any sandbox without it, saying how to create it."""

import os
import subprocess
import sys
import textwrap

import pytest
from stepsmith.runner.sandbox import identity

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox user applies to a root runner")


def test_missing_dedicated_user_is_refused_with_the_way_to_create_it(monkeypatch):
    monkeypatch.setattr(identity, "SYSTEM_USER", "stepsmith-no-such-user")
    with pytest.raises(identity.SandboxUserMissing) as err:
        identity.sandbox_user()
    text = str(err.value)
    assert "stepsmith-no-such-user" in text and "useradd --system" in text, text
    assert "65534" in text or "nobody" in text, text  # says why nobody is not used


@pytest.mark.parametrize("name", ["nobody", "root"])
def test_shared_or_privileged_accounts_are_never_the_sandbox_user(monkeypatch, name):
    monkeypatch.setattr(identity, "SYSTEM_USER", name)
    with pytest.raises(identity.SandboxUserMissing):
        identity.sandbox_user()


def test_the_dedicated_user_is_used_when_present():
    import pwd

    pw = pwd.getpwnam(identity.SYSTEM_USER)  # scripts/setup created it on this machine
    assert identity.sandbox_user() == (pw.pw_uid, pw.pw_gid)
    assert pw.pw_uid not in (0, identity.NOBODY)


PROBE = textwrap.dedent("""
    import sys
    from stepsmith.runner.sandbox import identity, run_step
    identity.SYSTEM_USER = "stepsmith-no-such-user"
    res = run_step("def f():\\n    return 1\\n", "f", {})
    print(res.status)
    print(res.message)
""")


@as_root
def test_a_root_runner_without_the_user_runs_no_sandbox():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    status, message = done.stdout.splitlines()[:2]
    assert status == "unavailable", done.stdout
    assert "stepsmith-no-such-user" in message and "useradd" in message, message
