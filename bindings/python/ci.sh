#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# CI for the Python binding: runs the unittest suite of bindings/python and
# examples/python/lde_checksum.py against an installed gpuprover.
#
#   bash bindings/python/ci.sh PREFIX
#
# PREFIX is the prefix gpuprover was installed to (cmake --install ... --prefix
# PREFIX). Needs python3 (>= 3.8, standard library only; installed with
# apt-get when missing). numpy is used by a few tests when it is importable.
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
echo "Python binding CI passed"
