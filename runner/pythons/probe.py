"""One interpreter, as it describes itself (describe.py), and the probe that asks it.

A candidate is run once (`<candidate> -I -S describe.py`, a few milliseconds) and believed
only if it says it is CPython; the answer is kept in memory and in the user's cache folder
(`$XDG_CACHE_HOME/stepsmith/interpreters`, as bundle_cache keeps compiled harnesses), keyed by
the candidate's real path and checked against the stat (mtime, size, inode) of the files the
answer depends on: the binary, its shared libpython and its stdlib's `os.py`. A wrapper (a
pyenv shim: a script that execs some interpreter chosen at run time) is probed every time, its
answer never cached: the interpreter it picks can change without the shim changing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from . import describe

PROBE_TIMEOUT_S = 15.0
_DESCRIBE = Path(__file__).resolve().with_name("describe.py")
FORMAT = 1


@dataclass(frozen=True)
class Interpreter:
    """A CPython installation a workflow's steps can be checked and run on."""

    exe: str  # the real binary (never a shim or a venv's symlink)
    version: tuple[int, int, int]
    release: str  # "3.13.5", "3.14.0rc1"
    build: str  # sys.version on one line: release, build date, compiler
    prefix: str
    stdlib: str
    platstdlib: str
    site: tuple[str, ...] = ()  # site-packages folders (hidden in the sandbox)
    libdir: str | None = None
    library: str | None = None  # the shared libpython, for a shared build
    magic: str = ""  # bytecode magic number (hex): marshal'd code is for this interpreter only
    opcodes: tuple[tuple[str, int | None], ...] = ()
    abiflags: str = ""
    running: bool = field(default=False, compare=False)  # the interpreter stepsmith runs on

    @property
    def minor(self) -> str:
        return f"{self.version[0]}.{self.version[1]}"

    @property
    def identity(self) -> str:
        """What results are tied to: the release and its build (sys.version on one line)."""
        return self.build

    def label(self) -> str:
        return f"Python {self.release} at {self.exe}"

    def opcode(self, name: str) -> int | None:
        return dict(self.opcodes).get(name)

    @classmethod
    def from_description(cls, d: dict, *, running: bool = False) -> Interpreter:
        v = d["version"]
        return cls(exe=str(d["exe"]), version=(int(v[0]), int(v[1]), int(v[2])),
                   release=str(d["release"]), build=str(d["build"]), prefix=str(d["prefix"]),
                   stdlib=str(d["stdlib"]), platstdlib=str(d["platstdlib"]),
                   site=tuple(str(s) for s in d.get("site") or ()),
                   libdir=d.get("libdir"), library=d.get("library"),
                   magic=str(d.get("magic") or ""),
                   opcodes=tuple(sorted((str(k), v) for k, v in
                                        (d.get("opcodes") or {}).items())),
                   abiflags=str(d.get("abiflags") or ""), running=running)


class ProbeFailed(Exception):
    """The candidate is not a CPython this tool can use (message: what it is instead)."""


_running: Interpreter | None = None
_memo: dict[tuple, Interpreter] = {}
_lock = threading.Lock()


def running() -> Interpreter:
    """The interpreter stepsmith itself runs on (no subprocess; its description is cached
    like a probe's, keyed by its environment's prefix too: a venv names its own site-packages,
    and sysconfig's paths cost a command line ~20 ms)."""
    global _running
    if _running is None:
        real = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
        key = f"running\0{real}\0{sys.prefix}"
        cached = _load_cached(key, real)
        if cached is None:
            info = describe.describe()
            cached = Interpreter.from_description(info)
            _store_cached(key, info, cached)
        _running = dataclasses.replace(cached, running=True)
    return _running


def _stat_key(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _depends(interp: Interpreter) -> list[str]:
    deps = [interp.exe, os.path.join(interp.stdlib, "os.py")]
    if interp.library:
        deps.append(interp.library)
    return deps


def _cache_file(key: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    name = hashlib.sha256(f"{FORMAT}\0{key}".encode()).hexdigest()[:32]
    return Path(base) / "stepsmith" / "interpreters" / f"{name}.json"


def _load_cached(key: str, real: str) -> Interpreter | None:
    try:
        entry = json.loads(_cache_file(key).read_text("utf-8"))
        interp = Interpreter.from_description(entry["info"])
        stats = entry["stats"]
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
    deps = _depends(interp)
    if interp.exe != real or [list(s) if s else None for s in map(_stat_key, deps)] != stats:
        return None
    return interp


def _store_cached(key: str, info: dict, interp: Interpreter) -> None:
    path = _cache_file(key)
    stats = [list(s) if s else None for s in map(_stat_key, _depends(interp))]
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp.write_text(json.dumps({"info": info, "stats": stats}), "utf-8")
        os.replace(tmp, path)
    except OSError:  # no cache: probed again next time
        try:
            tmp.unlink()
        except OSError:
            pass


def probe(candidate: str) -> Interpreter:
    """The interpreter `candidate` runs (ProbeFailed when it is not a usable CPython)."""
    real = os.path.realpath(candidate)
    if not os.path.isfile(real) or not os.access(real, os.X_OK):
        raise ProbeFailed("not an executable file")
    me = running()
    if real == me.exe:
        return me
    key = (real, _stat_key(real))
    with _lock:
        hit = _memo.get(key)
    if hit is not None:
        return hit
    cached = _load_cached(real, real)
    if cached is not None:
        with _lock:
            _memo[key] = cached
        return cached
    info = _ask(real)
    interp = Interpreter.from_description(info)
    if interp.exe == me.exe:
        return me
    if interp.exe == real:  # the binary itself, not a wrapper choosing one at run time
        with _lock:
            _memo[key] = interp
        _store_cached(real, info, interp)
    return interp


def _ask(exe: str) -> dict:
    try:
        done = subprocess.run([exe, "-I", "-S", str(_DESCRIBE)], capture_output=True,
                              timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        raise ProbeFailed(f"did not answer within {PROBE_TIMEOUT_S:.0f} s") from None
    except OSError as exc:
        raise ProbeFailed(f"cannot be run ({exc.strerror or exc})") from None
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ProbeFailed(f"exited with status {done.returncode}"
                          + (f" ({err[-1][:200]})" if err else ""))
    try:
        info = json.loads(done.stdout.decode("utf-8"))
        impl = info["implementation"]
        Interpreter.from_description(info)
    except (ValueError, KeyError, TypeError, IndexError):
        raise ProbeFailed("is not a Python interpreter (no description)") from None
    if impl != "cpython":
        raise ProbeFailed(f"is {impl}, not CPython")
    return info


def forget() -> None:
    """Drop the in-memory probes (tests)."""
    with _lock:
        _memo.clear()


def running_version() -> tuple[int, int, int]:
    return tuple(sys.version_info[:3])  # type: ignore[return-value]
