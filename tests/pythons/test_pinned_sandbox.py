"""The sandbox runs the pinned interpreter: its prefix bound read-only (not the runner's), its
harness compiled by it (marshal's code format is per version), spares kept per interpreter,
the runtime identity naming its build, coverage and values traced by it. Real bwrap."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from sandbox_kit import alive
from stepsmith.runner import harness
from stepsmith.runner.harness import build
from stepsmith.runner.pythons import probe
from stepsmith.runner.sandbox import cmdline, run_step, runtime_identity, spares
from stepsmith.runner.store.identity import RuntimeIdentity

pytestmark = pytest.mark.usefixtures("sandbox")

BRANCHES = '''import math


def pick(a, b):
    if a > b:
        big = a
    else:
        big = math.fma(b, 2.0, 1.0)
    return big
'''


@pytest.fixture(scope="module")
def i313(py313):
    return probe.probe(py313)


def bound(lay: dict) -> set[str]:
    m = lay["mounts"]
    return {m[i + 1] for i, a in enumerate(m) if a == "--ro-bind"}


def test_the_sandbox_binds_the_pinned_prefix_not_the_runners(i313):
    mine, theirs = bound(cmdline.layout()), bound(cmdline.layout(i313))
    assert i313.exe in theirs or any(i313.exe.startswith(p + "/") for p in theirs)
    assert i313.stdlib in theirs or any(i313.stdlib.startswith(p + "/") for p in theirs)
    me = probe.running()
    own = {p for p in mine - theirs}  # the runner's own interpreter paths
    assert own and not any(me.exe == p or me.exe.startswith(p + "/") for p in theirs), own
    assert cmdline.layout(i313)["exe"] == i313.exe
    # its site-packages is hidden like the runner's
    m = cmdline.layout(i313)["mounts"]
    hidden = {m[i + 1] for i, a in enumerate(m) if a == "--tmpfs"}
    assert set(i313.site) & hidden == {s for s in i313.site if os.path.isdir(s)}


def test_a_shared_build_binds_its_libpython(i313, tmp_path):
    """(The built 3.13 is static; a shared one's libpython lives outside its stdlib.)"""
    import dataclasses

    lib = tmp_path / "lib" / "libpython3.13.so.1.0"
    lib.parent.mkdir()
    lib.write_bytes(b"\x7fELF")
    shared = dataclasses.replace(i313, exe=str(tmp_path / "bin" / "python3.13"),
                                 library=str(lib))
    try:
        assert str(lib) in bound(cmdline.layout(shared))
    finally:
        cmdline.forget()


def test_the_harness_is_compiled_by_the_pinned_interpreter(i313):
    own, pinned = harness.bundle(), harness.bundle(i313)
    assert i313.magic != probe.running().magic
    # the same sources, and a code check table of its own bytecode (3.13 encodes names and
    # numbers its opcodes otherwise)
    assert own["sha256"] == pinned["sha256"] and own["check"] != pinned["check"]
    assert pinned["main_code"] is None and pinned["frame"]
    assert pinned["frame"] != build.harness_frame(own)  # not this interpreter's code
    show = ("import marshal,sys; c=marshal.loads(sys.stdin.buffer.read());"
            "print(type(c[0]).__name__, c[0].co_filename)")
    out = subprocess.run([i313.exe, "-I", "-S", "-c", show], input=pinned["frame"],
                         capture_output=True, text=False, check=True)
    assert out.stdout.split() == [b"code", b"<stepsmith-harness>"]


def test_the_runtime_identity_names_the_interpreters_build(i313):
    mine, theirs = runtime_identity(), runtime_identity(i313)
    assert theirs["python_version"] == i313.build and i313.release in i313.build
    assert mine["python_version"] == probe.running().build
    assert mine["python_version"] != theirs["python_version"]
    differ = RuntimeIdentity(**mine).differences(RuntimeIdentity(**theirs))
    assert [d.split(":")[0] for d in differ] == ["python_version"]  # the same harness source


def test_a_pin_the_interpreter_is_not_is_refused_before_any_sandbox(i313):
    res = run_step("def f():\n    return 1\n", "f", {}, python="3.13")  # no interpreter given
    assert res.status == "unavailable" and "pins python '3.13'" in res.message
    res = run_step("def f():\n    return 1\n", "f", {}, python="3.11", interpreter=i313)
    assert res.status == "unavailable" and f"Python {i313.release}" in res.message


def test_coverage_and_values_are_traced_on_the_pinned_interpreter(i313):
    on13 = run_step(BRANCHES, "pick", {"a": 1.0, "b": 2.0}, python="3.13", interpreter=i313,
                    trace="values")
    assert on13.status == "ok" and on13.output == 5.0, on13.message
    assert {5, 8, 9} <= on13.coverage.lines and 6 not in on13.coverage.lines
    assert (5, 8) in on13.coverage.arcs and (8, 9) in on13.coverage.arcs
    values = {v.line: v.first.label() for v in on13.values}
    assert values == {8: "big = 5.0", 9: "return 5.0"}, values
    # the same trace as the running interpreter gives for code both read alike
    on11 = run_step(BRANCHES.replace("math.fma(b, 2.0, 1.0)", "b * 2.0 + 1.0"), "pick",
                    {"a": 1.0, "b": 2.0}, python="3.11", trace="values")
    assert on11.coverage.lines == on13.coverage.lines
    assert on11.coverage.arcs == on13.coverage.arcs


def test_spares_are_kept_per_interpreter(i313):
    pool = spares.enable(1)
    try:
        assert pool.wait_ready(30)
        (own,) = pool.pids()
        res = run_step("def f():\n    return 1\n", "f", {}, python="3.13", interpreter=i313)
        assert res.status == "ok" and alive(own)  # a 3.13 run does not take a 3.11 spare
        assert pool.wait_ready(60), "no 3.13 spare started"
        pids = set(pool.pids()) - {own}
        assert len(pids) == 1
        (theirs,) = pids
        exes = {pid: _sandbox_exe(pid) for pid in (own, theirs)}
        assert exes[theirs] == i313.exe and exes[own] == probe.running().exe, exes
        res = run_step("def f():\n    return 2\n", "f", {}, python="3.13", interpreter=i313)
        assert res.status == "ok" and res.output == 2 and not alive(theirs)
    finally:
        spares.disable()


def _sandbox_exe(bwrap_pid: int) -> str:
    """The interpreter a spare's bwrap starts (its command line: after `--seccomp FD`)."""
    with open(f"/proc/{bwrap_pid}/cmdline", "rb") as fh:
        argv = fh.read().decode().split("\0")
    return argv[argv.index("--seccomp") + 2]


def test_this_suite_runs_on_311():
    assert sys.version_info[:2] == (3, 11)


def test_another_build_of_the_version_compiles_its_own_harness(i313, monkeypatch, tmp_path):
    """The compiled bundle kept in the cache folder is named by the pinned interpreter's path,
    build and bytecode magic (the cache names the running one itself): another build never
    loads code compiled by this one."""
    import dataclasses

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    compiled = []
    real = harness._build_elsewhere
    monkeypatch.setattr(harness, "_build_elsewhere",
                        lambda i, s, parts: compiled.append(parts is None) or real(i, s, parts))
    harness.reset_cache()
    try:
        harness.bundle(i313)
        harness.reset_cache()
        harness.bundle(i313)  # a new process: from the cache, only its frame assembled
        harness.reset_cache()
        harness.bundle(dataclasses.replace(i313, build=i313.build + " (another build)"))
        assert compiled == [True, False, True]
    finally:
        harness.reset_cache()
