"""Bounded, contained file access for everything stepsmith reads from or writes to a workflow
folder (SPEC: "Files from a workflow folder"; issue 10, finding 2).

A cloned folder is untrusted. Without this, `ln -s /dev/zero sub/workflow.yaml` grew
`stepsmith check` and the language server until the OOM killer (st_size is 0 for a device),
a symlinked fixture or manifest quoted a root-only host file in a diagnostic, `record`
followed `fixtures/<step> -> /elsewhere`, and `.stepsmith -> /elsewhere` moved the store.

Reads: the file's real path must lie inside `root` (the workflow folder, or the workspace
folder for the language server), it must be a regular file (no device, FIFO or socket:
opened O_NONBLOCK so a FIFO cannot hang us), and at most `cap + 1` bytes are read whatever
st_size says. `no_symlink=True` (credential files) also refuses a symlink anywhere between
root and the file (O_NOFOLLOW on the last component).
Writes: `safe_dir(root, rel)` creates / checks a directory chain under root refusing any
symlinked component; `write_atomic` is THE writer of every file stepsmith creates (fixtures,
pending changes, `.gitignore`, --lf state, reports): a fresh O_EXCL|O_NOFOLLOW temporary file
in the same folder, fsynced, then renamed (or hard-linked, never clobbering) over the target,
so a kill at any moment leaves the old file or the new one, never half.

No check-then-use by path below `root` (issue 18: root running stepsmith in someone else's
checkout races a local writer who swaps a folder for a symlink between the check and the
rename): `write_atomic`, `unlink` and no-symlink reads walk from `root` with directory fds
opened O_NOFOLLOW|O_DIRECTORY one component at a time (`_walk`), then create, rename, link,
unlink or open the last component relative to the held fd (`dir_fd=`: openat, renameat,
linkat, unlinkat). A swap after a component was opened changes nothing for us: we hold the
folder itself, not its name. (tests/cli/test_safeio_race.py: a process exchanging a folder with
a symlink, atomically, as fast as it can.)
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from stepsmith.runner.model.grammar import is_manifest_name

MANIFEST_CAP = 1024 * 1024
STEP_FILE_CAP = 1024 * 1024
FIXTURE_CAP = 8 * 1024 * 1024
CREDENTIALS_CAP = 64 * 1024


class UnsafePath(OSError):
    """A path stepsmith refuses to follow (outside the folder, a symlink, not a regular file)."""


class TooLarge(UnsafePath):
    def __init__(self, path, cap: int):
        super().__init__(f"{path}: larger than the {cap:,}-byte limit")
        self.cap = cap


def inside(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    return _real_inside(path, root) is not None


def _real_inside(path: str | os.PathLike, root: str | os.PathLike) -> str | None:
    """`path`'s real path when it lies inside `root`'s, else None: the one resolution a read
    checks and then opens (resolving twice cost a third of loading 280 fixtures)."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real if real == top or real.startswith(top.rstrip(os.sep) + os.sep) else None


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class _Outside(UnsafePath):
    """The path is not below the folder at all (lexically)."""


def _parts_below(root: str | os.PathLike, path: str | os.PathLike) -> list[str]:
    """`path`'s components below `root` (lexically), UnsafePath when it is not below."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    parts = Path(rel).parts
    if rel in (os.curdir, os.pardir) or not parts or os.path.isabs(rel) or \
            any(p in ("", ".", "..") for p in parts):
        raise _Outside(f"{path}: not inside the workflow folder {root}")
    return list(parts)


def _walk(root: str | os.PathLike, folders: list[str], *, create: bool) -> int:
    """An fd of root/folders[0]/..., every component opened O_NOFOLLOW relative to the one
    before (created 0o755, `.stepsmith` 0o700, when `create`). The root itself may be reached
    through a symlink (the user named it). Caller closes the fd."""
    if create and not os.path.lexists(root):
        os.makedirs(root, exist_ok=True)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for i, part in enumerate(folders):
            try:
                nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, 0o700 if part == ".stepsmith" else 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
                nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                shown = os.path.join(root, *folders[:i + 1])
                if _is_link(part, fd):
                    raise UnsafePath(f"{shown}: is a symlink; stepsmith does not follow it "
                                     "here") from None
                try:
                    st = os.stat(part, dir_fd=fd, follow_symlinks=False)
                except OSError:
                    st = None
                if st is not None and not stat.S_ISDIR(st.st_mode):
                    raise UnsafePath(f"{shown}: is not a directory") from None
                raise  # the open's own error (permission, ...) stands
            os.close(fd)
            fd = nxt
        return fd
    except BaseException:
        os.close(fd)
        raise


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _check_target(name: str, dir_fd: int, shown) -> bool:
    """True when `name` exists in the folder as a regular file, False when absent;
    UnsafePath for a symlink or anything else."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(st.st_mode):
        raise UnsafePath(f"{shown}: is a symlink; stepsmith does not write through it")
    if not stat.S_ISREG(st.st_mode):
        raise UnsafePath(f"{shown}: not a regular file")
    return True


def _open_below(path: Path, root: str | os.PathLike) -> int:
    """Open the file `path` below `root` for reading with no symlink on the way (fd walk)."""
    parts = _parts_below(root, path)
    dfd = _walk(root, parts[:-1], create=False)
    try:
        try:
            return os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                           | os.O_CLOEXEC, dir_fd=dfd)
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            if _is_link(parts[-1], dfd):
                raise UnsafePath(f"{path}: is a symlink; stepsmith does not follow it "
                                 "here") from None
            raise
    finally:
        os.close(dfd)


def read_bytes(path: str | os.PathLike, *, root: str | os.PathLike, cap: int,
               no_symlink: bool = False) -> bytes:
    """The file's bytes, or UnsafePath/TooLarge/FileNotFoundError (all OSError)."""
    path = Path(path)
    if no_symlink:
        try:
            fd = _open_below(path, root)
        except _Outside:
            raise UnsafePath(f"{path}: outside the workflow folder") from None
    else:
        real = _real_inside(path, root)
        if real is None:
            if not os.path.lexists(path):
                raise FileNotFoundError(2, "No such file or directory", str(path))
            raise UnsafePath(f"{path}: resolves outside the workflow folder "
                             f"({os.path.realpath(root)}); stepsmith does not follow it")
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePath(f"{path}: not a regular file")
        if st.st_size > cap:
            raise TooLarge(path, cap)
        chunks, total = [], 0
        while total <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > cap:
            raise TooLarge(path, cap)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike, *, root: str | os.PathLike, cap: int,
              no_symlink: bool = False) -> str:
    return read_bytes(path, root=root, cap=cap, no_symlink=no_symlink).decode("utf-8")


def workflow_root(path: str | os.PathLike, depth: int = 4) -> Path:
    """The workflow folder a file belongs to: the nearest ancestor (up to `depth` levels)
    holding a manifest (workflow.yaml or *.workflow.yaml), else the file's own folder."""
    start = Path(os.path.abspath(path)).parent
    cur = start
    for _ in range(depth):
        try:
            names = os.listdir(cur)
        except OSError:
            names = []
        if any(is_manifest_name(n) for n in names):
            return cur
        if cur.parent == cur:
            break
        cur = cur.parent
    return start


def read_workspace_text(path: str | os.PathLike, cap: int = FIXTURE_CAP) -> str | None:
    """For readers that get a bare path (the language server's disk reader): the file's text,
    contained in its workflow folder and capped; None when unreadable or refused."""
    try:
        return read_text(path, root=workflow_root(path), cap=cap)
    except (OSError, UnicodeDecodeError):
        return None


def safe_dir(root: str | os.PathLike, rel: str | os.PathLike, *, create: bool = True) -> Path:
    """`root/rel` as a real directory chain inside root: every component is created (0o755,
    or 0o700 for `.stepsmith`) or must already be a directory that is not a symlink."""
    top = Path(root)
    if create and not os.path.lexists(top):
        os.makedirs(top, exist_ok=True)
    if os.path.islink(top):
        top = Path(os.path.realpath(top))  # the folder itself may be reached through a link
    cur = top
    for part in Path(rel).parts:
        if part in ("", ".", ".."):
            raise UnsafePath(f"{rel}: not a plain relative path")
        cur = cur / part
        try:
            st = os.lstat(cur)
        except FileNotFoundError:
            if not create:
                return cur
            try:
                os.mkdir(cur, 0o700 if part == ".stepsmith" else 0o755)
            except FileExistsError:
                pass
            st = os.lstat(cur)
        if stat.S_ISLNK(st.st_mode):
            raise UnsafePath(f"{cur}: is a symlink; stepsmith does not write through it")
        if not stat.S_ISDIR(st.st_mode):
            raise UnsafePath(f"{cur}: is not a directory")
    return cur


def refuse_symlink(path: str | os.PathLike) -> None:
    """Before replacing or opening `path` for writing: it must not be a symlink."""
    if os.path.islink(path):
        raise UnsafePath(f"{path}: is a symlink; stepsmith does not write through it")


def contained(root: str | os.PathLike, target: str | os.PathLike, *, create_dirs: bool = False) -> None:
    """UnsafePath unless `target` lies under `root` through real folders only (the missing ones
    created when `create_dirs`) and is a regular file or absent."""
    target = Path(os.path.abspath(target))
    rel = os.path.relpath(target, os.path.abspath(root))
    if rel == os.curdir or rel == os.pardir or rel.startswith(os.pardir + os.sep):
        raise UnsafePath(f"{target}: not inside {root}")
    safe_dir(root, os.path.dirname(rel) or os.curdir, create=create_dirs)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return
    except NotADirectoryError as exc:
        raise UnsafePath(f"{target}: a folder on the way is not a directory") from exc
    if stat.S_ISLNK(st.st_mode):
        raise UnsafePath(f"{target}: is a symlink; stepsmith does not write through it")
    if not stat.S_ISREG(st.st_mode):
        raise UnsafePath(f"{target}: not a regular file")


def read_if_exists(path: str | os.PathLike, *, root: str | os.PathLike, cap: int) -> bytes | None:
    """A file stepsmith itself keeps under `root` (fixtures, pending changes, state): its bytes,
    None when absent; no symlink anywhere between root and the file."""
    try:
        return read_bytes(path, root=root, cap=cap, no_symlink=True)
    except FileNotFoundError:
        return None


def write_atomic(path: str | os.PathLike, data: bytes | str, *, root: str | os.PathLike | None = None,
                 overwrite: bool = True, durable: bool = True) -> None:
    """Write `data` to `path` all at once or not at all. `root`: the workflow folder `path` lies
    in (every folder between must be real, `path` no symlink: UnsafePath; walked with fds, see
    the module docstring); None for a path the user named (a report). Without `overwrite` an
    existing `path` raises FileExistsError and is left alone, even if it appears meanwhile
    (hard link: no check-then-replace race). `durable=False`: no fsync, for state a lost
    write costs nothing of (--lf's failures, durations, caches): still all or nothing for
    readers, but a crash may leave the old version or none (an fsync is ~5 ms a file, paid
    per workflow after every test run)."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if root is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    else:
        parts = _parts_below(root, path)
        dfd = _walk(root, parts[:-1], create=True)
    try:
        name = path.name
        if root is not None:
            _check_target(name, dfd, path)
        fd, tmp = _new_temp(name, dfd)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                if durable:
                    os.fsync(fh.fileno())
            if root is not None:
                _check_target(name, dfd, path)  # it must not have become a symlink meanwhile
            if overwrite:
                os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
            else:
                _link_new(tmp, name, dfd, path)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
            raise
        if durable:
            os.fsync(dfd)
    finally:
        os.close(dfd)


def _new_temp(name: str, dir_fd: int) -> tuple[int, str]:
    for n in range(100):
        cand = f".{name}.{os.getpid()}.{n}.tmp"
        try:
            return os.open(cand, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                           | os.O_CLOEXEC, 0o644, dir_fd=dir_fd), cand
        except FileExistsError:
            continue
    raise OSError(f"cannot create a temporary file next to {name}")


def _link_new(tmp: str, name: str, dir_fd: int, shown: Path) -> None:
    try:
        os.link(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError:  # a filesystem without hard links
        try:
            os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            return
        raise FileExistsError(shown) from None
    else:
        os.unlink(tmp, dir_fd=dir_fd)


def unlink(root: str | os.PathLike, target: str | os.PathLike) -> bool:
    """Remove a regular file below `root` (never through a symlinked folder: fd walk, then
    unlinkat); False if absent."""
    parts = _parts_below(root, target)
    try:
        dfd = _walk(root, parts[:-1], create=False)
    except FileNotFoundError:
        return False
    try:
        if not _check_target(parts[-1], dfd, target):
            return False
        try:
            os.unlink(parts[-1], dir_fd=dfd)
        except FileNotFoundError:
            return False
        os.fsync(dfd)
        return True
    finally:
        os.close(dfd)


def fsync_dir(folder: str | os.PathLike) -> None:
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
