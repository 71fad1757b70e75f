"""Writing a file all at once or not at all (fixtures, JUnit reports, --lf state)."""

from __future__ import annotations


def write_atomic(path, text: str, *, overwrite: bool = True, root=None) -> None:
    """Write `text` to `path` all at once or not at all (a temporary file in the same folder,
    fsynced, then renamed; removed on any failure or Ctrl-C). Without `overwrite`, an existing
    `path` raises FileExistsError and is left alone, even if it appears meanwhile (hard link:
    no check-then-replace race). `root`: the workflow folder `path` lies in; every folder
    between must be a real directory, and `path` itself not a symlink (safeio.UnsafePath)."""
    import os
    import tempfile

    from stepsmith.runner import safeio

    if root is not None:  # inside a workflow folder: no symlinked folder or file on the way
        safeio.safe_dir(root, os.path.relpath(path.parent, root))
        safeio.refuse_symlink(path)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # FileExistsError when it exists
            except FileExistsError:
                raise
            except OSError:  # a filesystem without hard links
                if os.path.lexists(path):
                    raise FileExistsError(path) from None
                os.replace(tmp, path)
            else:
                os.unlink(tmp)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
