#!/usr/bin/env bash
# Fills bundled/libs with stepsmith and the language server's dependencies, the way
# vscode-python-tools-extension-template / vscode-mypy bundle theirs (`pip install --target`), so
# the server runs from any Python 3.11+ that does not have stepsmith installed
# (stepsmith.importStrategy "auto" / "useBundled": PYTHONPATH=bundled/libs).
#
# Pure-Python wheels work everywhere. Two dependencies carry compiled code:
#   - pydantic-core is compiled only: we bundle its Linux x86_64 (manylinux2014) build for
#     CPython 3.11 (the wheel pip picks) plus the extension modules of the same version for 3.12
#     and 3.13, side by side in pydantic_core/ (Python loads the one whose ABI tag matches).
#     That is why the .vsix is packaged with `--target linux-x64`. Elsewhere (macOS, Windows, arm64)
#     install stepsmith into your interpreter (`pip install stepsmith`) and the extension uses it.
#   - PyYAML ships an optional C accelerator for cp311; on other versions it falls back to its
#     pure-Python loader.
# pyseccomp is pure Python (ctypes over the system's libseccomp).
# Usage: bundle-python.sh [PYTHON]   (default python3; needs network access to PyPI)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
EXT=$(cd "$HERE/.." && pwd)
REPO=$(cd "$EXT/.." && pwd)
PY=${1:-${PYTHON:-python3}}
PLATFORM=${BUNDLE_PLATFORM:-manylinux2014_x86_64}
PYVER=${BUNDLE_PYTHON_VERSION:-3.11}
EXTRA_ABIS=${BUNDLE_EXTRA_ABIS:-"3.12 3.13"}
OUT="$EXT/bundled/libs"

rm -rf "$EXT/bundled"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# 1) stepsmith itself, built from a copy of the repository's Python sources (keeps build/ and
#    *.egg-info out of the work tree)
mkdir -p "$TMP/src"
cp "$REPO/pyproject.toml" "$REPO/setup.py" "$REPO/LICENSE" "$TMP/src/"
cp -r "$REPO/stepsmith" "$REPO/runner" "$REPO/server" "$REPO/schemas" "$TMP/src/"
cp -r "$REPO/docs" "$TMP/src/"  # the readme, and the guide and rule pages setup.py ships
find "$TMP/src" -name __pycache__ -prune -exec rm -rf {} +
# the SPDX `license = "MIT"` needs setuptools >= 77; an older local one builds in isolation
if "$PY" -c "import sys, setuptools, wheel; sys.exit(int(setuptools.__version__.split('.')[0]) < 77)" 2>/dev/null
then ISO=--no-build-isolation; else ISO=; fi
"$PY" -m pip install --quiet --disable-pip-version-check --no-compile --no-deps $ISO --target "$OUT" "$TMP/src"

# 2) its runtime dependencies (read from pyproject.toml), as wheels for the target platform
mapfile -t DEPS < <("$PY" - "$REPO/pyproject.toml" <<'EOF'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["dependencies"]))
EOF
)
echo "bundling: ${DEPS[*]}"
"$PY" -m pip install --quiet --disable-pip-version-check --no-compile --target "$OUT" \
  --only-binary=:all: --platform "$PLATFORM" --python-version "$PYVER" --implementation cp \
  --abi "cp${PYVER/./}" "${DEPS[@]}"

# 3) pydantic-core's extension module for further CPython versions, same pydantic-core version
PDC=$(ls -d "$OUT"/pydantic_core-*.dist-info | sed -E 's/.*pydantic_core-([^/]+)\.dist-info/\1/')
for v in $EXTRA_ABIS; do
  mkdir -p "$TMP/abi$v"
  if "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --platform "$PLATFORM" --python-version "$v" --implementation cp --abi "cp${v/./}" \
      -d "$TMP/abi$v" "pydantic-core==$PDC"; then
    "$PY" - "$TMP/abi$v" "$OUT/pydantic_core" <<'EOF'
import sys, zipfile, pathlib
src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for whl in src.glob("*.whl"):
    with zipfile.ZipFile(whl) as z:
        for n in z.namelist():
            if n.startswith("pydantic_core/_pydantic_core.") and n.endswith(".so"):
                (dst / pathlib.Path(n).name).write_bytes(z.read(n))
                print("added", pathlib.Path(n).name)
EOF
  else
    echo "warning: no pydantic-core $PDC wheel for CPython $v on $PLATFORM" >&2
  fi
done

# 4) no byte-code, no console scripts (bin/ would hold absolute shebangs of this machine)
find "$OUT" -name __pycache__ -prune -exec rm -rf {} +
rm -rf "$OUT/bin"
cat >"$EXT/bundled/README.txt" <<EOF
bundled/libs: stepsmith $(cat "$OUT"/stepsmith-*.dist-info/METADATA | sed -n 's/^Version: //p') and the language server's
dependencies for CPython ${PYVER} (+ pydantic-core extension modules for: ${EXTRA_ABIS}) on ${PLATFORM}.
Built by vscode-extension/scripts/bundle-python.sh; used with PYTHONPATH when stepsmith is not
importable from the chosen interpreter.
EOF
# smoke test: the bundled copy imports from a clean interpreter (no site-packages)
if "$PY" -c 'import sys; sys.exit(0 if sys.version_info[:2] >= (3, 11) else 1)'; then
  PYTHONPATH="$OUT" "$PY" -S -c 'import stepsmith.server, stepsmith.runner, pydantic, pygls, yaml; print("bundled libs import ok:", stepsmith.runner.__version__)'
fi
du -sh "$OUT"
