#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Prints, one per line, the Debian/Ubuntu packages that hold the shared
# libraries an installed gpuprover loads (gpuprover-server, libgpuprover.so
# and anything else under PREFIX/bin and PREFIX/lib), for installing them on
# a machine of the same distribution release:
#
#   sh packaging/runtime-packages.sh /opt/gpuprover > runtime-packages.txt
#   apt-get install --no-install-recommends $(cat runtime-packages.txt)  # elsewhere
#
# packaging/Dockerfile's runtime stage installs what its build stage printed.
# Fails when a library is not found, or is found outside every package; the
# install's own libraries (PREFIX/lib*/NAME) are skipped: they come with it.
set -eu

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 PREFIX" >&2
  exit 2
fi
prefix="$(cd "$1" && pwd -P)"

# own NAME: NAME is a library of the install (gp_demo, copied from a build
# tree, may find libgpuprover there or not at all).
own() {
  [ -e "$prefix/lib/$1" ] || [ -e "$prefix/lib64/$1" ]
}

# The ELF files of the install: every regular file that ldd understands.
files="$(find "$prefix/bin" "$prefix/lib" "$prefix/lib64" -type f 2>/dev/null | sort)"
libs=""
for f in $files; do
  out="$(LC_ALL=C ldd "$f" 2>/dev/null)" || continue
  case "$out" in *"not a dynamic executable"*) continue ;; esac
  for missing in $(printf '%s\n' "$out" | awk '$2 == "=>" && $3 == "not" { print $1 }'); do
    if ! own "$missing"; then
      echo "$f: $missing not found" >&2
      exit 1
    fi
  done
  libs="$libs
$(printf '%s\n' "$out" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }')"
done

# The package owning each library: dpkg knows a file under the path it was
# unpacked to, which with a merged /usr may be the /lib or the /usr/lib
# spelling, and a versioned name may be a link to the file.
for lib in $(printf '%s\n' "$libs" | sort -u); do
  real="$(readlink -f "$lib")"
  case "$real" in "$prefix"/*) continue ;; esac
  own "$(basename "$lib")" && continue
  pkg=""
  for p in "$lib" "$real"; do
    for q in "$p" "${p#/usr}" "/usr$p"; do
      pkg="$(dpkg-query -S "$q" 2>/dev/null | sed -n '1s/:.*//p')" || pkg=""
      [ -n "$pkg" ] && break 2
    done
  done
  if [ -z "$pkg" ]; then
    echo "$lib ($real) belongs to no installed package" >&2
    exit 1
  fi
  printf '%s\n' "$pkg"
done | sort -u
