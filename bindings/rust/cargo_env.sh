# SPDX-License-Identifier: MIT OR Apache-2.0
# Shared by bindings/rust/ci.sh and bindings/rust/gpuprover-plonky3/ci.sh
# (sourced): finding cargo, pointing it at Debian's crate registry offline,
# and finding an installed gpuprover.

die() {
  echo "${0##*/}: $*" >&2
  exit 1
}
run() {
  echo "+ $*" >&2
  "$@"
}

# gp_prefix USAGE [ARG]: the absolute path of the install prefix ARG (the
# script's first argument); USAGE on stderr and exit 2 without one.
gp_prefix() {
  [ "$#" -ge 2 ] || {
    echo "usage: $1" >&2
    exit 2
  }
  [ -d "$2" ] || die "install prefix '$2' is not a directory"
  (cd "$2" && pwd)
}

# gp_find_cargo [MIN_MINOR]: prints a cargo of version 1.MIN_MINOR or later
# (default any): $CARGO, the one in PATH, then ~/.cargo/bin/cargo.
gp_find_cargo() {
  local min="${1:-0}" c v
  for c in "${CARGO:-}" "$(command -v cargo 2>/dev/null || true)" "${HOME:-/root}/.cargo/bin/cargo"; do
    [ -n "$c" ] && [ -x "$c" ] || continue
    v="$("$c" --version 2>/dev/null | sed -n 's/^cargo 1\.\([0-9]*\).*/\1/p')"
    [ -n "$v" ] && [ "$v" -ge "$min" ] && { echo "$c"; return 0; }
  done
  return 1
}

# gp_cargo_home DIR REGISTRY: a CARGO_HOME in DIR whose crates come from the
# directory source REGISTRY (Debian's /usr/share/cargo/registry), offline;
# lines of [patch.crates-io] may be appended to DIR/config.toml.
gp_cargo_home() {
  mkdir -p "$1"
  cat >"$1/config.toml" <<CFG
[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "$2"

[net]
offline = true
CFG
  export CARGO_HOME="$1"
}

# gp_library PREFIX: finds the gpuprover installed at PREFIX; sets
# PKG_CONFIG_PATH (or GPUPROVER_DIR when the .pc names another prefix),
# gp_libdir and gp_includedir.
gp_library() {
  local prefix="$1" pc_file="" candidate
  for candidate in "$prefix"/lib/pkgconfig/gpuprover.pc "$prefix"/lib64/pkgconfig/gpuprover.pc \
    "$prefix"/lib/*/pkgconfig/gpuprover.pc "$prefix"/share/pkgconfig/gpuprover.pc; do
    if [ -f "$candidate" ]; then
      pc_file="$candidate"
      break
    fi
  done
  [ -n "$pc_file" ] || die "no $prefix/lib*/pkgconfig/gpuprover.pc; is $prefix the install prefix?"
  PKG_CONFIG_PATH="$(dirname "$pc_file")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export PKG_CONFIG_PATH
  gp_libdir="$(pkg-config --variable=libdir gpuprover)"
  gp_includedir="$(pkg-config --variable=includedir gpuprover)"
  unset GPUPROVER_DIR
  case "$gp_libdir/" in
    "$prefix"/*) ;;
    *)
      # The .pc records the prefix CMake was configured with; the files were
      # installed elsewhere. Use the prefix directly.
      echo "note: $pc_file names libdir $gp_libdir, outside $prefix; using GPUPROVER_DIR=$prefix" >&2
      export GPUPROVER_DIR="$prefix"
      gp_libdir="$(dirname "$(find "$prefix"/lib* -maxdepth 2 -name 'libgpuprover.so*' | head -n 1)")"
      gp_includedir="$prefix/include"
      ;;
  esac
  [ -f "$gp_includedir/gpuprover.h" ] || die "$gp_includedir/gpuprover.h not found"
  echo "gpuprover $(pkg-config --modversion gpuprover): headers $gp_includedir, library $gp_libdir" >&2
}

# gp_apt_install PKG...: installs, with apt-get, those of the Debian packages
# that are missing (as root directly, otherwise through sudo).
gp_apt_install() {
  local missing=() pkg sudo=()
  command -v dpkg-query >/dev/null 2>&1 || return 0
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$pkg")
    fi
  done
  [ "${#missing[@]}" -gt 0 ] || return 0
  command -v apt-get >/dev/null 2>&1 || die "missing: ${missing[*]} (and no apt-get to install them)"
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "missing packages: ${missing[*]}; run as root or install them"
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  run "${sudo[@]}" apt-get update
  run "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
}
