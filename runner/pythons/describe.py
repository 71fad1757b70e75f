"""What an interpreter says about itself: run BY the interpreter being described, as a script
(`python -I -S describe.py`, printing one JSON object) or imported by the running one
(`describe()`). Standard library only: it runs on any CPython a workflow may pin.

Paths are the *base* interpreter's (a venv's python reports the installation it was made
from): the sandbox binds the base stdlib, never a venv's site-packages.
"""

import json
import opcode
import os
import sys
import sysconfig
from importlib.util import MAGIC_NUMBER


def describe() -> dict:
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix,
            "installed_base": sys.base_prefix, "installed_platbase": sys.base_exec_prefix}
    base_paths = sysconfig.get_paths(vars=base)
    own_paths = sysconfig.get_paths()
    exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    libdir = sysconfig.get_config_var("LIBDIR")
    shared = bool(sysconfig.get_config_var("Py_ENABLE_SHARED"))
    soname = sysconfig.get_config_var("INSTSONAME") or sysconfig.get_config_var("LDLIBRARY")
    library = None
    if shared and libdir and soname:
        cand = os.path.join(libdir, soname)
        library = os.path.realpath(cand) if os.path.exists(cand) else None
    magic = MAGIC_NUMBER.hex()

    site = sorted({os.path.realpath(p) for p in (
        own_paths.get("purelib"), own_paths.get("platlib"),
        base_paths.get("purelib"), base_paths.get("platlib")) if p})
    return {
        "exe": exe,
        "implementation": sys.implementation.name,
        "version": list(sys.version_info[:3]),
        "release": sys.version.split()[0],
        "build": " ".join(sys.version.split()),
        "abiflags": getattr(sys, "abiflags", ""),
        "prefix": os.path.realpath(sys.base_prefix),
        "exec_prefix": os.path.realpath(sys.base_exec_prefix),
        "stdlib": os.path.realpath(base_paths["stdlib"]),
        "platstdlib": os.path.realpath(base_paths["platstdlib"]),
        "site": site,
        "libdir": os.path.realpath(libdir) if libdir and os.path.isdir(libdir) else None,
        "library": library,
        "magic": magic,
        "opcodes": {"resume": opcode.opmap.get("RESUME"),
                    "push_exc_info": opcode.opmap.get("PUSH_EXC_INFO")},
    }


if __name__ == "__main__":
    sys.stdout.write(json.dumps(describe()))
