"""The sandbox's host identity: never host root.

bwrap without setuid maps the sandbox's uid to the *caller's* host uid. When the runner is
root that made the step host root as far as the kernel's own checks go: root-only /proc
files (slabinfo, timer_list, kpageflags, ...) were readable, /proc/keys listed root's
keyrings, RLIMIT_NPROC was void and every per-user kernel quota was root's. So when the
runner is root, bwrap itself is started under an unprivileged host uid/gid: the dedicated
system user `stepsmith-sandbox` (scripts/setup creates it).

There is no fallback to 65534 ("nobody"), by design (issue 18): the launcher thread takes the
sandbox user's uid while it starts bwrap (launcher.py), and a process may signal any process
whose real or saved uid equals its own, so every process of that uid on the host could SIGKILL
the runner (language server, CI run) in that moment. With `nobody` that is every daemon
running as nobody; with the dedicated user it is only the sandboxes' own bwrap processes, and
the step inside each sits in a pid namespace of its own, where the runner has no pid. A root
runner without the user refuses to start sandboxes (`SandboxUserMissing`: status
"unavailable", saying how to create it); so does one whose user shares its uid with another
account, or is root or nobody.

One obstacle: the bind sources (the interpreter and its stdlib) may sit under a directory
that user cannot traverse (pyenv under /root, mode 0700), and bwrap resolves every source
path with the caller's own permissions (`--ro-bind-fd` too: it realpath()s
/proc/self/fd/N). So every bwrap is started from one thread (launcher.py) that entered a
private mount namespace of its own once (as root: `enter`), where each blocking directory is
covered with a small tmpfs (mode 0755) holding bind mounts of only the needed sources, at
their own paths. Nothing else of the covered directory is visible there, and neither the
host's mount table nor the runner's other threads see any of it. The forked child drops to
the sandbox user (Popen's user/group/extra_groups, in C) and execs bwrap. Doing this per
sandbox in a Python preexec_fn (fork, a fresh namespace and four mounts each time) cost
~2.8 ms a sandbox. Without root nothing here applies.
"""

from __future__ import annotations

import ctypes
import os
import pwd
import stat
from dataclasses import dataclass

SYSTEM_USER = "stepsmith-sandbox"
NOBODY = 65534
_CLONE_NEWNS = 0x00020000
_MS_BIND, _MS_REC, _MS_PRIVATE = 4096, 16384, 1 << 18
_MS_NOSUID, _MS_NODEV = 2, 4


@dataclass(frozen=True)
class HostIdentity:
    uid: int
    gid: int
    #: (directory to cover, sources to bind back under it): paths the sandbox user cannot reach
    covers: tuple[tuple[str, tuple[str, ...]], ...] = ()


class SandboxUserMissing(RuntimeError):
    """A root runner has no dedicated, unshared sandbox user: no sandbox is started."""


def _how(name: str) -> str:
    return (f"create it with `useradd --system --user-group --no-create-home --home-dir "
            f"/nonexistent --shell /usr/sbin/nologin {name}` (scripts/setup does); a root "
            "runner does not fall back to nobody (65534): every process of the sandbox's uid "
            "could signal the runner while it starts a sandbox")


def sandbox_user() -> tuple[int, int]:
    """(uid, gid) the sandbox runs as on the host when the runner is root: the dedicated user's,
    which must exist, be neither root nor nobody, and own its uid alone."""
    name = SYSTEM_USER
    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        raise SandboxUserMissing(f"the sandbox user {name!r} does not exist: "
                                 + _how(name)) from None
    if pw.pw_uid in (0, NOBODY) or pw.pw_gid in (0, NOBODY):
        raise SandboxUserMissing(f"the sandbox user {name!r} has uid/gid {pw.pw_uid}/"
                                 f"{pw.pw_gid}: it must be an unprivileged uid of its own; "
                                 + _how(SYSTEM_USER))
    shared = sorted(p.pw_name for p in pwd.getpwall() if p.pw_uid == pw.pw_uid
                    and p.pw_name != name)
    if shared:
        raise SandboxUserMissing(f"the sandbox user {name!r} shares uid {pw.pw_uid} with "
                                 f"{', '.join(shared)}: it must own its uid alone; "
                                 + _how(name))
    return pw.pw_uid, pw.pw_gid


def plan(sources: list[str]) -> HostIdentity | None:
    """None when the runner is not root (bwrap then runs as the runner, as before)."""
    if os.geteuid() != 0:
        return None
    uid, gid = sandbox_user()
    covers: dict[str, list[str]] = {}
    for src in sources:
        top = _first_blocked_ancestor(src, uid, gid)
        if top is not None:
            covers.setdefault(top, []).append(src)
    # a cover inside another cover is re-created by the outer one's binds
    tops = sorted(covers, key=len)
    merged: dict[str, list[str]] = {}
    for t in tops:
        outer = next((o for o in merged if t.startswith(o.rstrip("/") + "/")), None)
        merged.setdefault(outer or t, []).extend(covers[t])
    return HostIdentity(uid, gid, tuple((t, tuple(sorted(set(s)))) for t, s in merged.items()))


def _first_blocked_ancestor(path: str, uid: int, gid: int) -> str | None:
    parts = path.rstrip("/").split("/")
    for i in range(2, len(parts)):
        d = "/".join(parts[:i])
        try:
            st = os.stat(d)
        except OSError:
            return None
        if not _can(st, uid, gid, stat.S_IXUSR, stat.S_IXGRP, stat.S_IXOTH):
            return d
    return None


def _can(st: os.stat_result, uid: int, gid: int, u: int, g: int, o: int) -> bool:
    if st.st_uid == uid:
        return bool(st.st_mode & u)
    if st.st_gid == gid:
        return bool(st.st_mode & g)
    return bool(st.st_mode & o)


_ADDR_NO_RANDOMIZE = 0x0040000


def enter(ident: HostIdentity | None, *, no_aslr: bool) -> None:
    """Prepare the CALLING THREAD to start sandboxes (launcher.py's thread, nothing else):
    address randomisation off for its children (`no_aslr`: what `setarch -R` does; the
    personality is per thread and inherited at fork), and, when sources need covering, a
    private mount namespace of its own (unshare in one thread of a process leaves the
    others' namespace alone) with the covers. The host uid change is not done here (setuid
    in one thread changes every thread's): the launcher passes user/group to Popen, which
    drops in the forked child, in C."""
    libc = ctypes.CDLL(None, use_errno=True)
    if no_aslr:  # best effort, as `setarch -R` is
        libc.personality.argtypes = [ctypes.c_ulong]
        current = libc.personality(0xFFFFFFFF)
        if current != -1:
            libc.personality(current | _ADDR_NO_RANDOMIZE)
    if ident is None or not ident.covers:
        return
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                           ctypes.c_char_p]
    if libc.unshare(_CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
    os.chdir("/")  # this thread's own cwd now (its fs_struct was unshared with the namespace)
    if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "mount --make-rprivate /")
    for top, srcs in ident.covers:
        # opened before the cover hides them; bound back through /proc/self/fd
        fds = [(os.open(s, os.O_PATH | os.O_CLOEXEC), s, os.path.isdir(s)) for s in srcs]
        try:
            if libc.mount(b"tmpfs", top.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV,
                          b"mode=0755,size=64k") != 0:
                raise OSError(ctypes.get_errno(), "mount tmpfs " + top)
            for fd, s, is_dir in fds:
                os.makedirs(os.path.dirname(s), 0o755, exist_ok=True)
                if is_dir:
                    os.makedirs(s, 0o755, exist_ok=True)
                else:
                    os.close(os.open(s, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))
                if libc.mount(b"/proc/self/fd/%d" % fd, s.encode(), None, _MS_BIND | _MS_REC,
                              None) != 0:
                    raise OSError(ctypes.get_errno(), "bind " + s)
        finally:
            for fd, _, _ in fds:
                os.close(fd)
