"""The bubblewrap command line of every sandbox (its supervision: process.py).

Containment, layer by layer (each holds on its own):
- namespaces: `--unshare-all` (user, pid, net, ipc, uts, cgroup, mount) + `--unshare-user
  --uid 65534 --gid 65534` and `--cap-drop ALL`: the step is "nobody" with no capabilities,
  in its own pid namespace, with no network interface but loopback (unless a live run).
- filesystem: a fresh tmpfs root remounted read-only holding only read-only binds of the
  system's shared libraries (/usr/lib*, /lib*, /etc/ld.so.cache), the interpreter binary and
  its standard library (site-packages hidden under an empty tmpfs), libfaketime, the time
  zone database (the directory the runner's own zoneinfo reads: `find_zoneinfo`); a
  read-only /dev holding only null, zero and urandom (the nodes still work), a fresh
  read-only /proc and a read-only empty /tmp. No workspace, no home, no /usr/bin (no
  shell), no host socket.
- environment: bwrap itself starts with an EMPTY environment (its pid-1 would otherwise show
  the runner's environment in /proc/1/environ), `--clearenv`, then only PYTHONHASHSEED=0,
  LC_ALL, PYTHONIOENCODING, the libfaketime plumbing (LD_PRELOAD, FAKETIME, ...), TZ (the
  workflow's zone, set by the harness from the request) and granted connections. Connection values go through `--args FD` (a memfd), never on bwrap's command
  line, which every host user can read in /proc/<pid>/cmdline.
- seccomp (seccomp.py) right before the exec of Python; rlimits set by the harness as its
  first action (CPU, AS, FSIZE=0, NPROC=0, CORE=0, NOFILE=64, MSGQUEUE=0).
- parent: deadline, output cap, kills and reaping (process.py).
- addresses: bwrap is started under `setarch -R` (no ASLR) where available, so memory
  addresses a step can see (`repr(f)`) are reproducible.
"""

from __future__ import annotations

import importlib.resources
import os
import subprocess
import sys
import sysconfig
import threading
import zoneinfo
from shutil import which

from . import identity
from .request import SANDBOX_ZONEINFO

FAKETIME_CANDIDATES = (
    "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
    "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
    "/usr/lib/faketime/libfaketime.so.1",
    "/usr/lib64/faketime/libfaketime.so.1",
)
SANDBOX_UID = 65534
SANDBOX_DIR = "/run/stepsmith"  # the egress proxy's directory (egress.py)
#: The sandbox's fresh /proc is remounted read-only as a whole (`--remount-ro /proc`). The
#: sandbox's "nobody" is the *runner's* uid on the host: when the runner is root, file
#: permission checks see the owner (root) and the sysctl check sees the global root euid, so
#: /proc/sys/kernel/core_pattern (a program the host kernel runs as root on every core dump),
#: kernel.modprobe, vm.*, fs.*, /proc/sysrq-trigger, /proc/irq/*, /proc/bus/pci/* were
#: writable from a step (bwrap covers /proc/sys only when it finds it writable *before*
#: switching uid, which it never is). One remount (not a cover per directory: start-up
#: time) makes every write through /proc fail with EROFS; the harness writes nothing there.
_lock = threading.Lock()
_layouts: dict[str | None, dict] = {}  # interpreter exe (None: the running one) -> layout
_common: dict | None = None


class Unavailable(RuntimeError):
    """The sandbox cannot be built on this machine (message says how to fix it)."""


def find_bwrap() -> str | None:
    for cand in (which("bwrap"), "/usr/bin/bwrap", "/bin/bwrap"):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def find_setarch() -> str | None:
    for cand in (which("setarch"), "/usr/bin/setarch", "/bin/setarch"):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def find_faketime() -> str | None:
    for cand in FAKETIME_CANDIDATES:
        if os.path.isfile(cand):
            return cand
    return None


def find_zoneinfo() -> str | None:
    """The time zone database the runner's own `zoneinfo` reads (its TZPATH, else the `tzdata`
    package's copy), as a real path; None when there is none. Bound read-only into every
    sandbox at SANDBOX_ZONEINFO, so the sandbox's local time (TZ=":<that>/<zone>") is computed
    by the C library from the very TZif file zoneinfo reads in the parent."""
    for cand in zoneinfo.TZPATH:
        if os.path.isfile(os.path.join(cand, "UTC")):
            return os.path.realpath(cand)
    try:
        pkg = importlib.resources.files("tzdata") / "zoneinfo"
        path = os.path.realpath(str(pkg))
        return path if os.path.isfile(os.path.join(path, "UTC")) else None
    except (ImportError, TypeError, OSError):
        return None


def interpreter() -> str:
    """The real interpreter binary (never a pyenv shim or a venv symlink)."""
    exe = sys.executable
    base = getattr(sys, "_base_executable", None) or exe
    return os.path.realpath(base)


def _host() -> dict:
    """What every sandbox shares whatever its interpreter: bwrap, libfaketime, the system
    libraries, the tz database, /dev, setarch (computed once per process)."""
    global _common
    if _common is not None:
        return _common
    bwrap = find_bwrap()
    if bwrap is None:
        raise Unavailable("bwrap not found: apt-get install bubblewrap "
                          "(stepsmith never runs a step outside its sandbox)")
    faketime = find_faketime()
    if faketime is None:
        raise Unavailable("libfaketime not found: apt-get install faketime "
                          "(the sandbox pins the OS clock with it)")
    binds: list[str] = []
    for sysdir in ("/usr/lib", "/usr/lib64", "/usr/lib32"):
        if os.path.isdir(sysdir) and not os.path.islink(sysdir):
            binds.append(sysdir)
    links: list[str] = []
    for top in ("/lib", "/lib64", "/lib32"):
        if os.path.islink(top):
            links += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            binds.append(top)
    # Address-space randomisation off for the sandbox (util-linux `setarch -R` execs bwrap
    # with ADDR_NO_RANDOMIZE, inherited by the interpreter): memory addresses reach a
    # step through `repr(f)`, `hash(object())`, set order of such objects, ..., and with
    # ASLR they differ between runs of the same request. Without setarch, best effort:
    # the runner still works, those values are then not reproducible.
    setarch = find_setarch()
    prefix = [setarch, os.uname().machine, "-R"] if setarch else []
    if prefix:  # a container's seccomp profile may refuse the personality flag
        try:
            probe = subprocess.run([*prefix, bwrap, "--version"], env={}, timeout=5,
                                   stdin=subprocess.DEVNULL, capture_output=True)
            if probe.returncode != 0:
                prefix = []
        except (OSError, subprocess.SubprocessError):
            prefix = []
    # /dev: an empty tmpfs (read-only below) with the three device nodes a step's Python
    # may open, rather than bwrap's `--dev` (six nodes, a devpts instance for /dev/pts,
    # /dev/shm, ~0.4 ms a sandbox): no terminal, no shared-memory directory
    dev = ["--tmpfs", "/dev"]
    for node in ("/dev/null", "/dev/zero", "/dev/urandom"):
        if os.path.exists(node):
            dev += ["--dev-bind", node, node]
    _common = {"bwrap": bwrap, "faketime": faketime, "binds": binds, "links": links,
               "prefix": prefix, "dev": dev, "zoneinfo": find_zoneinfo()}
    return _common


def _running_paths() -> dict:
    """The running interpreter's binds, as `Interpreter` names them for any other: its real
    binary, its *base* stdlib (inside a venv sysconfig's default scheme names the venv's own
    lib/pythonX.Y as platstdlib: its site-packages, and the workspace path it lives under,
    would then be bound into every sandbox), LIBDIR, and every site-packages to hide."""
    paths = sysconfig.get_paths()
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix,
            "installed_base": sys.base_prefix, "installed_platbase": sys.base_exec_prefix}
    base_paths = sysconfig.get_paths(vars=base)
    libdir = sysconfig.get_config_var("LIBDIR")
    site = [paths.get("purelib", ""), paths.get("platlib", ""),
            base_paths.get("purelib", ""), base_paths.get("platlib", "")]
    return {"exe": interpreter(), "stdlib": os.path.realpath(base_paths["stdlib"]),
            "platstdlib": os.path.realpath(base_paths["platstdlib"]),
            "libdir": os.path.realpath(libdir) if libdir and os.path.isdir(libdir) else None,
            "library": None, "site": [os.path.realpath(p) for p in site if p],
            "version": f"{sys.version_info[0]}.{sys.version_info[1]}"}


def _pinned_paths(interp) -> dict:
    """The same for a pinned interpreter, from what it said about itself (pythons/probe.py):
    its prefix's binary, stdlib and LIBDIR, and its shared libpython for a shared build."""
    return {"exe": interp.exe, "stdlib": interp.stdlib, "platstdlib": interp.platstdlib,
            "libdir": interp.libdir, "library": interp.library, "site": list(interp.site),
            "version": interp.minor}


def layout(interp=None) -> dict:
    """The static part of every sandbox's command line for `interp` (a pythons.Interpreter;
    default: the one the runner runs on), computed once per process and interpreter. Each
    interpreter's sandboxes bind its own binary, stdlib and libraries read-only, never the
    runner's (unless it is the runner's)."""
    key = None if interp is None or interp.running else interp.exe
    with _lock:
        hit = _layouts.get(key)
        if hit is not None and (key is None or hit["interpreter"] == interp):
            return hit
        host = _host()
        own = _running_paths() if key is None else _pinned_paths(interp)
        exe = own["exe"]
        ro = set(host["binds"])
        for p in [exe, own["stdlib"], own["platstdlib"], host["faketime"], own["libdir"],
                  own["library"]]:
            if p:
                ro.add(p)
        # drop paths already covered by another bind
        kept: list[str] = []
        for p in sorted(ro, key=lambda p: (len(p), p)):
            if not any(p == k or p.startswith(k.rstrip("/") + "/") for k in kept):
                kept.append(p)
        args: list[str] = list(host["links"])
        for p in kept:
            args += ["--ro-bind", p, p]
        if os.path.isfile("/etc/ld.so.cache"):
            args += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
        # Hide every site-packages under a bound path: the running environment's and, when
        # the runner lives in a venv, the base interpreter's too (sysconfig's default scheme
        # names only the venv's, which is not bound — the base one is, with the stdlib).
        hide = {sp for sp in own["site"] if sp and os.path.isdir(sp)
                and any(sp.startswith(k.rstrip("/") + "/") for k in kept)}
        for sp in sorted(hide):
            args += ["--tmpfs", sp, "--remount-ro", sp]
        # the tz database at one fixed place (after the covers: a `tzdata` package's copy
        # may sit in a site-packages hidden above)
        zoneinfo_dir = host["zoneinfo"]
        if zoneinfo_dir is not None:
            args += ["--ro-bind", zoneinfo_dir, SANDBOX_ZONEINFO]
        sources = kept + (["/etc/ld.so.cache"] if os.path.isfile("/etc/ld.so.cache") else [])
        sources += [zoneinfo_dir] if zoneinfo_dir is not None else []
        # a root runner starts bwrap from its launcher thread (launcher.py), which turns
        # ASLR off for its children itself: one exec (setarch's) cheaper
        try:
            ident = identity.plan(sources)
        except identity.SandboxUserMissing as exc:  # not cached: creating the user fixes it
            raise Unavailable(str(exc)) from None
        lay = {"bwrap": host["bwrap"], "exe": exe, "faketime": host["faketime"],
               "mounts": args, "dev": host["dev"],
               "zoneinfo": zoneinfo_dir,  # None: no tz database here (UTC only)
               "prefix": host["prefix"],  # non-empty: address randomisation is off (setarch -R)
               "identity": ident, "version": own["version"], "interpreter": interp}
        _layouts[key] = lay
        return lay


def forget() -> None:
    """Drop the computed layouts (tests that change what the host offers)."""
    global _common
    with _lock:
        _layouts.clear()
        _common = None


def command(*, live_network: bool, faketime_spec: str, seccomp_fd: int, args_fd: int | None,
            bootstrap: str, egress_dir: str | None = None,
            bootstrap_args: tuple[str, ...] = (), interp=None) -> list[str]:
    """`live_network`: the run may reach the public internet, through the proxy directory
    `egress_dir` (egress.py), bound at SANDBOX_DIR. The sandbox never shares the host's
    network namespace, live or not. `bootstrap_args`: the bootstrap's sys.argv[1:]. `interp`:
    the pinned interpreter (default: the running one)."""
    lay = layout(interp)
    cmd = [lay["bwrap"], "--unshare-all"]
    cmd += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL",
            # The interpreter is the namespace's pid 1: no bwrap monitor process shares the
            # sandbox. That monitor is not covered by the harness's rlimits, and the step (same
            # uid) could write its memory through /proc/1/mem, clear its parent-death signal,
            # leave the process group and outlive the call (tests/sandbox/test_sandbox_redteam.py).
            "--as-pid-1"]
    cmd += lay["mounts"]
    if live_network:
        # connect() works on a read-only bind; without a proxy (the command line alone, in
        # tests) the directory is empty and every request fails
        cmd += (["--ro-bind", egress_dir, SANDBOX_DIR] if egress_dir is not None
                else ["--tmpfs", SANDBOX_DIR])
        for f in ("/etc/ssl", "/etc/ca-certificates", "/usr/share/ca-certificates"):
            if os.path.exists(f):  # TLS is end to end in the step: it verifies certificates
                cmd += ["--ro-bind", os.path.realpath(f), f]
    cmd += [*lay["dev"], "--proc", "/proc", "--remount-ro", "/proc",
            "--tmpfs", "/tmp", "--remount-ro", "/tmp",
            "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/",
            "--setenv", "PYTHONHASHSEED", "0",
            "--setenv", "LC_ALL", "C.UTF-8",
            "--setenv", "PYTHONIOENCODING", "utf-8",
            "--setenv", "LD_PRELOAD", lay["faketime"],
            "--setenv", "FAKETIME", faketime_spec,
            # seconds since the epoch: the default format is read as *local* time, which the
            # sandbox's TZ makes the workflow's zone (and ambiguous in a repeated hour)
            "--setenv", "FAKETIME_FMT", "%s",
            # re-read on every clock call: the harness sets the request's time (inside.py),
            # so a sandbox started ahead of its request (spares.py) pins the right instant
            "--setenv", "FAKETIME_NO_CACHE", "1",
            "--setenv", "FAKETIME_DONT_FAKE_MONOTONIC", "1"]
    if args_fd is not None:  # granted connections (--setenv ...), after --clearenv
        cmd += ["--args", str(args_fd)]
    cmd += ["--seccomp", str(seccomp_fd),
            lay["exe"], "-s", "-S", "-B", "-P", "-c", bootstrap, *bootstrap_args]
    return cmd
