#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# CI for the Python binding: runs the unittest suite of bindings/python and
# examples/python/lde_checksum.py against an installed gpuprover, then installs
# the package (bindings/python/pyproject.toml) into a fresh virtual environment,
# offline, and runs the example and an import check with it from outside the
# checkout.
#
#   bash bindings/python/ci.sh PREFIX
#
# PREFIX is the prefix gpuprover was installed to (cmake --install ... --prefix
# PREFIX). Needs python3 (>= 3.8, standard library only; installed with
# apt-get when missing). numpy is used by a few tests when it is importable.
# The package install needs the venv module, pip and setuptools >= 61 (before
# setuptools 70.1 also wheel) for $PYTHON or for /usr/bin/python3; when
# neither has them, python3-venv, python3-pip, python3-setuptools and
# python3-wheel are installed with apt-get. No network: pip runs with
# --no-index --no-build-isolation.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 PREFIX" >&2
  exit 2
fi
prefix="$(cd "$1" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# What examples/c/lde_checksum.c prints.
expected='lde checksum: 0x40445ea8c51c1e87
merkle root: 0x1b2845fdf79a57eb43cfdb86c67607b10c03817fe2d482098171bfd73b594adc'
python="${PYTHON:-python3}"

if ! command -v "$python" >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends python3
  python=python3
fi
"$python" - <<'EOF'
import sys
if sys.version_info < (3, 8):
    sys.exit("python %s is too old: the gpuprover binding needs 3.8 or newer" % sys.version.split()[0])
print("python", sys.version.split()[0])
EOF

# The binding finds the library under GPUPROVER_DIR; nothing else may win.
unset GPUPROVER_LIB
export GPUPROVER_DIR="$prefix"
export PYTHONPATH="$root/bindings/python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1 # keep the checkout free of __pycache__

"$python" - "$prefix" <<'EOF'
import os, sys
import gpuprover as gp
lib = os.path.realpath(gp.library_path)
prefix = os.path.realpath(sys.argv[1])
print("gpuprover %s from %s" % (gp.version(), lib))
if not lib.startswith(prefix + os.sep):
    sys.exit("loaded %s, which is not under %s" % (lib, prefix))
with gp.Context() as ctx:
    print("backend %s, device %r" % (ctx.backend.name.lower(), ctx.device_name))
EOF

cd "$root/bindings/python"
"$python" -m unittest discover -v

cd "$root"
out="$("$python" examples/python/lde_checksum.py)"
printf '%s\n' "$out"
if [ "$out" != "$expected" ]; then
  echo "examples/python printed '$out', expected '$expected'" >&2
  exit 1
fi

# The package, installed. pip builds in the source directory (build/,
# gpuprover.egg-info/), so it builds a copy of bindings/python, which keeps the
# checkout clean. Everything below runs outside the checkout and without
# PYTHONPATH: only the installed package can be imported.
version="$(sed -n 's/^project(gpuprover VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")"
if [ -z "$version" ]; then
  echo "no project(gpuprover VERSION ...) in $root/CMakeLists.txt" >&2
  exit 1
fi
unset PYTHONPATH
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
pytmp="$(mktemp -d)"
trap 'rm -rf "$pytmp"' EXIT
mkdir "$pytmp/src" "$pytmp/run"
(cd "$root/bindings/python" && tar -cf - --exclude=__pycache__ pyproject.toml README.md gpuprover) |
  tar -xf - -C "$pytmp/src"
cp "$root/examples/python/lde_checksum.py" "$pytmp/run/"

# make_venv PY DIR: a virtual environment of PY in DIR that sees PY's own
# packages and can build this one (pip, setuptools >= 61 and, before
# setuptools 70.1, wheel).
make_venv() {
  rm -rf "$2"
  command -v "$1" >/dev/null 2>&1 || return 1
  "$1" -m venv --system-site-packages "$2" >/dev/null 2>&1 || return 1
  "$2/bin/python" -m pip --version >/dev/null 2>&1 || return 1
  "$2/bin/python" -c '
import re, setuptools
v = tuple(int(x) for x in re.findall(r"\d+", setuptools.__version__)[:2])
assert v >= (61, 0), setuptools.__version__
if v < (70, 1):
    import wheel
' >/dev/null 2>&1
}
venv="$pytmp/venv"
venv_python=""
for py in "$python" /usr/bin/python3; do
  if make_venv "$py" "$venv"; then
    venv_python="$py"
    break
  fi
done
if [ -z "$venv_python" ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends python3-venv python3-pip python3-setuptools python3-wheel
  if make_venv /usr/bin/python3 "$venv"; then venv_python=/usr/bin/python3; fi
fi
if [ -z "$venv_python" ]; then
  echo "cannot make a virtual environment with pip, setuptools >= 61 and wheel" >&2
  exit 1
fi
echo "package: venv of $venv_python ($("$venv/bin/python" -c 'import sys; print(sys.version.split()[0])'))"

"$venv/bin/python" -m pip install --no-build-isolation --no-index --quiet "$pytmp/src"
cd "$pytmp/run"
"$venv/bin/python" - "$prefix" "$version" "$venv" <<'EOF'
import os, sys
from importlib import metadata
import gpuprover as gp
prefix, version, venv = os.path.realpath(sys.argv[1]), sys.argv[2], os.path.realpath(sys.argv[3])
where = os.path.realpath(gp.__file__)
if not where.startswith(venv + os.sep):
    sys.exit("imported gpuprover from %s, not from the virtual environment %s" % (where, venv))
if metadata.version("gpuprover") != version:
    sys.exit("package version %s, project version %s" % (metadata.version("gpuprover"), version))
if not os.path.realpath(gp.library_path).startswith(prefix + os.sep):
    sys.exit("loaded %s, which is not under %s" % (gp.library_path, prefix))
files = [str(f) for f in metadata.files("gpuprover")]
if any("libgpuprover" in f or f.startswith("tests") for f in files):
    sys.exit("the package holds more than the module: %s" % files)
with gp.Context() as ctx:
    backend = ctx.backend.name.lower()
print("package gpuprover %s in the venv; library %s, backend %s" % (version, gp.version(), backend))
EOF
out="$("$venv/bin/python" lde_checksum.py)"
# Indented: .ci/run takes the lines that start with "lde checksum" and
# "merkle root" as the example's, once.
printf '%s\n' "$out" | sed 's/^/  installed: /'
if [ "$out" != "$expected" ]; then
  echo "examples/python with the installed package printed '$out', expected '$expected'" >&2
  exit 1
fi

# An editable install of the same tree: the module is then imported from it.
"$venv/bin/python" -m pip install --no-build-isolation --no-index --quiet -e "$pytmp/src"
"$venv/bin/python" - "$pytmp/src" <<'EOF'
import os, sys
import gpuprover as gp
src = os.path.realpath(sys.argv[1])
if not os.path.realpath(gp.__file__).startswith(src + os.sep):
    sys.exit("editable install: imported gpuprover from %s, not from %s" % (gp.__file__, src))
print("editable install: gpuprover %s from the source tree" % gp.version())
EOF
echo "Python binding CI passed"
