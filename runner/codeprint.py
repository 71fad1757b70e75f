"""What would change an answer on the stepsmith side: the version, the Python, and every
runner module's size and mtime (no file is read). Caches in the user's folder (`check`'s,
`mutants`') put it in their keys, so an upgrade or an edited checkout never reuses an answer."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import stepsmith


def code_fingerprint(salt: str = "") -> str:
    """The fingerprint, salted with the caller's format (each caller keeps it once made)."""

    h = hashlib.sha256(f"{salt}\0{stepsmith.__version__}\0{sys.version}".encode())
    root = Path(__file__).resolve().parent  # runner/
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                st = os.stat(os.path.join(dirpath, name))
                h.update(f"{dirpath}/{name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()
