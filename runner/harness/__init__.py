"""The in-sandbox harness, as the parent ships it.

The files next to this one (`inside.py`, `facades.py`, `tracer.py`) run INSIDE the sandbox. They are never
imported by the runner: `bundle(interp)` has them compiled once per process and interpreter
by the interpreter the sandbox runs, the workflow's pinned one (build.py; marshal's code format is
that interpreter's own), and caches the marshalled code objects. The constant `BOOTSTRAP` is
the only code on the sandbox's command line; everything else arrives on stdin.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from . import build

if TYPE_CHECKING:
    from stepsmith.runner.pythons.probe import Interpreter

HARNESS_VERSION = "1"

BOOTSTRAP = (
    "import gc,sys,marshal\n"
    "gc.disable()\n"
    "c,*a=marshal.loads(sys.stdin.buffer.read())\n"
    "exec(c,{'__name__':'__stepsmith_harness__','ARGS':a})\n"
)

#: Both bootstraps turn the cycle collector off first: loading the harness allocates thousands of container objects that live as long as the sandbox, and collecting
#: them over and over was ~2% of a fresh sandbox's CPU time. The harness turns it back on
#: (its objects frozen out of later collections) before any step code runs
#: (inside.py `_collector_on`).
#: The bootstrap of every validated run. The harness frame (harness, facades, the code
#: check's table and trace code) is read from a sealed memfd the parent creates once per process and
#: passes to every sandbox, its fd number the bootstrap's one argument (`harness_fd`): no
#: pipe copy of it per sandbox (~0.6 ms); the fd is closed before the harness runs. Stdin
#: carries the request alone: a frame (8-byte big-endian length, then marshal data), read by
#: the harness (`_take_request`). Both are read into buffers of their exact size (no
#: read-ahead, and the same allocations however the bytes arrive). A spare
#: (sandbox/spares.py) loads the harness when it starts and gets its request when taken.
SPARE_BOOTSTRAP = (
    "import gc,marshal,posix,sys\n"
    "gc.disable()\n"
    "def rd(n,f=0):\n"
    " b=bytearray(n);v=memoryview(b);o=0\n"
    " while o<n:\n"
    "  k=posix.preadv(f,[v[o:]],o) if f else posix.readv(0,[v[o:]])\n"
    "  if not k:raise EOFError\n"
    "  o+=k\n"
    " v.release()\n"
    " return b\n"
    "f=int(sys.argv[1])\n"
    "c,*a=marshal.loads(rd(posix.fstat(f).st_size,f))\n"
    "posix.close(f)\n"
    "exec(c,{'__name__':'__stepsmith_harness__','ARGS':a,'READ':rd})\n"
)


def frame(obj) -> bytes:
    """One length-prefixed marshal frame of a SPARE_BOOTSTRAP stdin (plain values only:
    format 4, which every interpreter a workflow may pin reads)."""
    data = marshal.dumps(obj, 4)
    return len(data).to_bytes(8, "big") + data


def harness_fd(interp: Interpreter | None = None) -> int:
    """The sealed memfd holding the harness frame (harness, facades, code check table and
    trace code) for `interp` (default: the running interpreter), created once per bundle:
    SPARE_BOOTSTRAP's argument, passed to every validated sandbox of that interpreter. Sealed
    against writes, growing and shrinking, so no sandbox can change what the next one loads;
    read with pread (the shared file offset does not matter). Close-on-exec here: only the
    sandboxes it is passed to inherit it."""
    b = bundle(interp)
    with _lock:
        if "fd" not in b:
            import fcntl

            data = b["frame"] if b.get("frame") is not None else build.harness_frame(b)
            fd = os.memfd_create("stepsmith-harness", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK
                        | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
            b["fd"] = fd
        return b["fd"]


_HERE = Path(__file__).resolve().parent
_RUNNER = _HERE.parent
_lock = threading.Lock()
_cache: dict[str, dict] = {}  # interpreter exe -> its bundle

HARNESS_PARTS = build.HARNESS_PARTS


def _sources(interp: Interpreter | None = None) -> list[tuple[str, Path, bytes]]:
    """(label, path, bytes) of every file the bundle is built from, in the digest's order."""
    out: list[tuple[str, Path, bytes]] = []

    def add(path: Path, label: str) -> None:
        out.append((label, path, path.read_bytes()))

    for name in (*HARNESS_PARTS, "inside.py"):
        add(_HERE / name, f"harness/{name}")
    # this file too: its bootstraps run in the sandbox and it binds the parts together
    add(_HERE / "__init__.py", "harness/__init__.py")
    add(_HERE / "build.py", "harness/build.py")
    add(_HERE / "facades.py", "harness/facades.py")
    add(_HERE / "tracer.py", "harness/tracer.py")
    # the dialect's names the code check refuses are read from here (`_policy`)
    add(_RUNNER / "validator" / "policy.py", "validator/policy.py")
    return out


def _request(sources: list[tuple[str, Path, bytes]]) -> tuple:
    """build.py's inputs: (sources, the code check's policy, allowed modules)."""
    return ([(label, str(path), src) for label, path, src in sources], _policy(),
            tuple(sorted(_allowed_modules())))


def _policy() -> dict:
    """validator/policy.py's names, as the in-sandbox code check (codecheck.py) reads them:
    the one definition of the dialect, shipped as data."""
    from stepsmith.runner.validator import policy

    return {"allowed": policy.ALLOWED_MODULES, "network": policy.NETWORK_MODULES,
            "forbidden_builtins": policy.FORBIDDEN_BUILTINS,
            "frame_prefixes": tuple(policy.FRAME_PREFIXES), "mro": policy.MRO_NAMES,
            "module_leaks": policy.MODULE_LEAK_NAMES - frozenset(policy.MODULE_LEAK_EXEMPT),
            "max_bytes": policy.MAX_SOURCE_BYTES}


def _allowed_modules() -> frozenset:
    """validator/policy.py's ALLOWED_MODULES, as this process imported it. Through the package
    (`from validator import policy`), never the submodule first: a thread importing a
    submodule holds its import lock while it waits for the package, and deadlocks with a
    thread importing the package, which waits for that submodule (`stepsmith test` imports
    both at once: the sandbox probe's bundle and the first workflow's check)."""
    from stepsmith.runner.validator import policy

    return policy.ALLOWED_MODULES


def _compile_parts(sources: list[tuple[str, Path, bytes]]) -> dict:
    """The marshalled code of the bundle's parts, compiled by this interpreter."""
    from stepsmith.runner.validator.astlock import AST_LOCK

    with AST_LOCK:  # trees are built and compiled here (validator/astlock.py)
        return build.compile_parts(*_request(sources))


def _build_elsewhere(interp: Interpreter, sources: list, parts: dict | None) -> dict:
    """build.py run BY `interp`: {"parts", "frame"}; `parts` given: only the frame."""
    import subprocess

    if parts is None:
        request = (*_request(sources), "parts")
    else:
        request = (list(parts.items()), {}, (), "frame")
    try:
        done = subprocess.run([interp.exe, "-I", "-S", "-B", str(_HERE / "build.py")],
                              input=marshal.dumps(request, 4), capture_output=True,
                              timeout=120, env={}, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise BuildFailed(f"{interp.label()} could not compile the harness: {exc}") from None
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise BuildFailed(f"{interp.label()} could not compile the harness"
                          + (f": {err[-1][:300]}" if err else ""))
    answer = marshal.loads(done.stdout)
    return {"parts": dict(answer["parts"]), "frame": bytes(answer["frame"])}


class BuildFailed(RuntimeError):
    """A pinned interpreter could not compile the harness (too old for its code, broken)."""


def bundle(interp: Interpreter | None = None) -> dict:
    """Compiled harness, facades and code check table for `interp` (default: the running interpreter),
    cached per process and interpreter, and compiled once per source version: the compiled
    parts are kept in the user's cache folder under the digest of their sources and the
    interpreter (bundle_cache.py; compiling is most of a test run's start-up). Another
    interpreter than the running one compiles its own (build.py run by it: marshal's code
    format is its own) and assembles its harness frame.

    Returns {"main": bytes, "facades": bytes, "trace": bytes, "check": bytes,
    "sha256": str, "files": [...], "main_code", "frame"}; "sha256" covers the source of
    everything that runs inside the sandbox and the policy its code check reads. "check" is
    marshal of the code check's table (build.code_table). "main_code" (the
    harness as a code object) and "frame" (the harness memfd's bytes) are None for the
    running interpreter's bundle until needed / for another interpreter's respectively.
    """
    from stepsmith.runner.pythons.probe import running

    interp = interp or running()
    with _lock:
        hit = _cache.get(interp.exe)
        if hit is not None and hit["interpreter"] == interp:
            return hit
        from . import bundle_cache

        sources = _sources(interp)
        digest = hashlib.sha256()
        for label, _path, src in sources:
            digest.update(label.encode() + b"\0" + src + b"\0")
        sha = digest.hexdigest()
        # the facades are compiled with the allowed modules this process imported, which
        # need not be what policy.py says now (edited under a running server)
        policy = [(k, sorted(v) if isinstance(v, frozenset) else v)
                  for k, v in sorted(_policy().items())]  # (a frozenset's order is per process)
        inputs = f"{sha}\0{sorted(_allowed_modules())}\0{policy}"
        if not interp.running:  # bundle_cache keys by the running interpreter: name this one
            inputs += f"\0{interp.exe}\0{interp.build}\0{interp.magic}"
        parts = bundle_cache.load(inputs)
        frame_bytes = None
        if interp.running:
            if parts is None:
                parts = _compile_parts(sources)
                bundle_cache.store(inputs, parts)
            main_code = marshal.loads(parts["main"])
        else:
            built = _build_elsewhere(interp, sources, parts)
            if parts is None:
                parts = built["parts"]
                bundle_cache.store(inputs, parts)
            frame_bytes, main_code = built["frame"], None
        b = {**parts, "main_code": main_code, "sha256": sha, "frame": frame_bytes,
             "files": [label for label, _path, _src in sources], "interpreter": interp}
        _cache[interp.exe] = b
        return b


def reset_cache() -> None:
    """Forget the compiled bundles (tests; a long-lived server after an upgrade). Their memfds
    stay open: a start running concurrently may be passing its number on, and a number
    freed here could meanwhile name another file of the runner."""
    with _lock:
        _cache.clear()


def source_sha256() -> str:
    return bundle()["sha256"]


def python_version() -> str:
    return ".".join(str(n) for n in sys.version_info[:3])
