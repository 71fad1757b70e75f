"""The console script's exit (cli.console_main) skips tearing the interpreter down, and must
lose nothing for it: the exit code, the whole output through a pipe, the exit functions
(spare sandboxes stopped), a thread still at work."""

import json
import os
import signal
import subprocess
import sys

import pytest

STEPSMITH = [sys.executable, "-m", "stepsmith.runner.cli"]


def run(argv, cwd, **kw):
    return subprocess.run([*STEPSMITH, *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False, **kw)


@pytest.mark.usefixtures("sandbox")
def test_exit_code_output_and_nothing_left_behind(tmp_path, kit):
    wf = kit.write_workflow(tmp_path / "wf", fixtures={
        "add/good": kit.add_case("1.00", None, "1.50"),
        "add/bad": kit.add_case("1.00", None, "9.99")})
    p = subprocess.Popen([*STEPSMITH, "test", "--format", "json", str(wf)], cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, env={**os.environ, "CI": "true"})
    out, err = p.communicate(timeout=120)
    assert p.returncode == 1, err
    doc = json.loads(out)  # the whole document came through the pipe
    assert doc["summary"]["passed"] == 1 and doc["summary"]["failed"] == 1, doc["summary"]
    # nothing of the run is left in its session (its spare sandboxes were stopped)
    left = subprocess.run(["pgrep", "-s", str(p.pid)], capture_output=True, text=True,
                          check=False).stdout.split()
    for pid in left:
        os.kill(int(pid), signal.SIGKILL)
    assert left == []
    fixed = run(["test", str(wf), "-k", "good"], tmp_path)
    assert fixed.returncode == 0 and "1 passed" in fixed.stdout, fixed.stdout + fixed.stderr


def test_a_thread_still_at_work_is_waited_for(tmp_path):
    marker = tmp_path / "done"
    code = ("import sys, threading, time\n"
            "from stepsmith.runner.cli import console_main\n"
            f"def late():\n    time.sleep(0.5)\n    open({str(marker)!r}, 'w').write('x')\n"
            "threading.Thread(target=late).start()\n"
            "sys.argv = ['stepsmith', 'rules']\n"
            "console_main()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "SS101" in done.stdout
    assert marker.exists()


def test_a_daemon_thread_does_not_bring_the_teardown_back(tmp_path):
    """A root runner's sandbox launcher (sandbox/launcher.py) is a daemon thread for the
    process's life: Python's own exit abandons daemon threads too, so the exit stays fast. An
    object finalised by the teardown says whether it ran."""
    marker = tmp_path / "torn-down"
    code = ("import sys, threading, time\n"
            "from stepsmith.runner.cli import console_main\n"
            "class Witness:\n"
            f"    def __del__(self, _open=open):  # builtins are gone by then\n"
            f"        _open({str(marker)!r}, 'w').write('x')\n"
            "witness = Witness()\n"
            "threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\n"
            "sys.argv = ['stepsmith', 'rules']\n"
            "console_main()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0 and "SS101" in done.stdout, done.stderr
    assert not marker.exists()
    plain = code.replace("console_main()", "sys.exit(0)")  # the witness does see a teardown
    subprocess.run([sys.executable, "-c", plain], cwd=tmp_path, capture_output=True,
                   timeout=60, check=False)
    assert marker.exists()


def test_exit_functions_run_and_plain_output_is_flushed(tmp_path):
    marker = tmp_path / "exited"
    code = ("import atexit, sys\n"
            "from stepsmith.runner.cli import console_main\n"
            f"atexit.register(lambda: open({str(marker)!r}, 'w').write('x'))\n"
            "atexit.register(lambda: sys.stdout.write('said at exit'))\n"
            "sys.argv = ['stepsmith', 'rules']\n"
            "console_main()\n")
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=False, env=buffered)
    assert done.returncode == 0, done.stderr
    assert marker.exists()
    # what an exit function writes into the pipe (block-buffered, unflushed) arrives too
    assert done.stdout.endswith("said at exit")
    assert done.stdout.removesuffix("said at exit") == run(["rules"], tmp_path).stdout


def test_usage_errors_and_version_leave_the_ordinary_way(tmp_path):
    assert run(["chek"], tmp_path).returncode == 2
    v = run(["--version"], tmp_path)
    assert v.returncode == 0 and v.stdout.startswith("stepsmith ")
