"""Escapes past the in-process layers (validator off, restricted builtins on): every route
to real Python still lands inside the OS sandbox."""

import errno
import json

import pytest
from stepsmith.runner import sandbox
from stepsmith.runner.sandbox import Limits


def restricted(src, **kw):
    return sandbox._execute(src, "f", kw.pop("inputs", {}), filename="s.py", validate=False,
                            restricted=True, limits=Limits(), **kw)


def test_globals_leak_reaches_builtins_but_not_the_host():
    src = '''
import json
def f():
    real_builtins = json.dumps.__globals__["codecs"].builtins
    out = {"have_open": hasattr(real_builtins, "open")}
    try:
        real_builtins.open("/etc/passwd").read()
        out["passwd"] = "read"
    except OSError as e:
        out["passwd"] = e.errno
    os = real_builtins.__import__("os")
    try:
        os.fork()
        out["fork"] = "forked"
    except OSError as e:
        out["fork"] = e.errno
    try:
        real_builtins.open("/tmp/owned", "w").write("x")
        out["write"] = "written"
    except OSError as e:
        out["write"] = e.errno
    return out
'''
    res = restricted(src)
    assert res.status == "ok", res
    assert res.output == {"have_open": True, "passwd": errno.ENOENT, "fork": errno.EPERM,
                          "write": errno.EROFS}


def test_subclasses_walk_reaches_os_system_which_cannot_fork():
    src = '''
def f():
    for cls in ().__class__.__base__.__subclasses__():
        if cls.__name__ == "_wrap_close":
            g = cls.__init__.__globals__
            return {"system": g["system"]("id"), "listdir_root": sorted(g["listdir"]("/"))}
    import_ = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == "BuiltinImporter"][0]
    os = import_.load_module("posix")
    return {"system": os.system("id"), "listdir_root": sorted(os.listdir("/"))}
'''
    res = restricted(src)
    assert res.status == "ok", res
    assert res.output["system"] != 0
    assert "work" not in res.output["listdir_root"] and "home" not in res.output["listdir_root"]


def test_frame_walk_to_harness_globals_gains_nothing_secret():
    # gi_frame.f_back.f_globals reaches the harness; it holds only this step's own request.
    src = '''
def f(connections):
    try:
        1 / 0
    except ZeroDivisionError as e:
        frame = e.__traceback__.tb_frame
    req = None
    while frame is not None:
        req = frame.f_globals.get("REQ") or req
        frame = frame.f_back
    return sorted(req["connections"])
'''
    res = restricted(src, connections={"xero": "tok-123456"})
    assert res.status == "ok" and res.output == ["xero"]


def test_execve_into_python_with_forged_output_gets_no_channel():
    src = '''
import json
def f(child):
    os = json.dumps.__globals__["codecs"].builtins.__import__("os")
    os.execv("/proc/self/exe", ["python", "-S", "-c", child])
'''
    child = "print(%r)" % json.dumps({"status": "ok", "output": 42})
    res = restricted(src, inputs={"child": child})
    assert res.status == "error" and res.output is None
    assert "JSON" in res.message or "result" in res.message, res.message


@pytest.mark.parametrize("payload", [
    "def f():\n    return f.__code__.co_consts\n",
    "def f():\n    return [c.__name__ for c in ().__class__.__base__.__subclasses__()][:3]\n",
])
def test_introspection_is_contained_not_prevented(payload):
    # Documented: CPython has no in-process wall. These run (validator off) and return data
    # about the sandbox's own interpreter only.
    res = restricted(payload)
    assert res.status in ("ok", "error")
    json.dumps(res.to_json())


def test_live_network_only_for_public_egress_and_explicit(monkeypatch):
    seen = []
    real = sandbox.cmdline.command

    def spy(**kw):
        seen.append(kw["live_network"])
        return real(**kw)

    monkeypatch.setattr(sandbox.cmdline, "command", spy)
    from stepsmith.runner.validator import StepUse

    src = "def f():\n    return 1\n"
    sandbox.run_step(src, "f", {}, uses=[StepUse("s", "f", "none")], live_network=True)
    sandbox.run_step(src, "f", {}, uses=[StepUse("s", "f", "public_egress")])
    sandbox.run_step(src, "f", {}, uses=[StepUse("s", "f", "public_egress")], live_network=True)
    assert seen == [False, False, True]
    cmd = real(live_network=True, faketime_spec="2026-12-01 07:00:00", seccomp_fd=3,
               args_fd=None, bootstrap="pass")
    # issue 10, finding 6: a live run no longer shares the host's network namespace; its one
    # way out is the runner's egress proxy, bound in as a unix socket
    assert "--share-net" not in cmd and "/run/stepsmith" in cmd
    assert "--share-net" not in real(live_network=False, faketime_spec="x", seccomp_fd=3,
                                     args_fd=None, bootstrap="pass")
